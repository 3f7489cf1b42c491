package org.tandembroker.amqp;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import io.netty.util.concurrent.EventExecutor;
import org.apache.qpid.proton.engine.Transport;

/**
 * Drives Proton's idle-timeout handling: calls {@code transport.tick(now)} when Proton asks to be ticked, so it
 * sends empty frames (heartbeats) before the peer's timeout and closes a connection that stayed silent beyond ours
 * (also one that never finished its handshake). Runs the connection's pump after every tick to write the result.
 *
 * <p>Thread: the channel's event loop, which also runs the scheduled ticks.
 */
final class IdleTimeoutTicker {
    private final Transport transport;
    private final EventExecutor eventLoop;
    private final Runnable afterTick;
    private ScheduledFuture<?> scheduled;
    private boolean stopped;

    IdleTimeoutTicker(Transport transport, EventExecutor eventLoop, Runnable afterTick) {
        this.transport = transport;
        this.eventLoop = eventLoop;
        this.afterTick = afterTick;
    }

    void start() {
        tick();
    }

    /** Ticks again soon, e.g. after the peer's open announced its own idle timeout. */
    void restart() {
        cancel();
        if (!stopped) {
            scheduled = eventLoop.schedule(this::tick, 0, TimeUnit.MILLISECONDS);
        }
    }

    void stop() {
        stopped = true;
        cancel();
    }

    private void tick() {
        scheduled = null;
        if (stopped) {
            return;
        }
        long now = TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
        long deadline = transport.tick(now);
        afterTick.run();
        if (deadline != 0 && !stopped && scheduled == null) {
            scheduled = eventLoop.schedule(this::tick, Math.max(1, deadline - now), TimeUnit.MILLISECONDS);
        }
    }

    private void cancel() {
        if (scheduled != null) {
            scheduled.cancel(false);
            scheduled = null;
        }
    }
}
