package org.tandembroker.core.exec;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in submission order, on a shared pool. An object whose state is confined to one
 * {@code SerialExecutor} behaves as if it had a thread of its own (the single-writer principle) without costing
 * one: thousands of queues share a few pool threads.
 *
 * <p>Thread-safe: {@link #execute} may be called from any thread.
 */
public final class SerialExecutor implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);
    private static final int TASKS_PER_TURN = 256;
    private static final ThreadLocal<SerialExecutor> CURRENT = new ThreadLocal<>();

    private final String name;
    private final Executor pool;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    public SerialExecutor(String name, Executor pool) {
        this.name = name;
        this.pool = pool;
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        scheduleIfIdle();
    }

    /**
     * Like {@link #execute}, but when this executor is idle (no task running or waiting) the calling thread runs
     * the task itself, and whatever was queued behind it in the meantime (one turn at most, the rest then goes to
     * the pool), instead of waking a pool thread for it. For a short task handed over by a thread that has just
     * finished its own work (a commit's completion enqueueing its message): it saves the pool thread's wake-up and
     * the wait for a core. The order and one-at-a-time guarantees are those of {@link #execute}. The caller must
     * not hold a lock that this executor's tasks take.
     */
    public void executeHereIfIdle(Runnable task) {
        tasks.add(task);
        if (scheduled.compareAndSet(false, true)) {
            runSome();
        }
    }

    /** True when the calling thread is currently running this executor's tasks. */
    public boolean inExecutor() {
        return CURRENT.get() == this;
    }

    private void scheduleIfIdle() {
        if (scheduled.compareAndSet(false, true)) {
            pool.execute(this::runSome);
        }
    }

    private void runSome() {
        SerialExecutor outer = CURRENT.get(); // set when one executor's task ran another's here (executeHereIfIdle)
        CURRENT.set(this);
        try {
            for (int i = 0; i < TASKS_PER_TURN; i++) {
                Runnable task = tasks.poll();
                if (task == null) {
                    break;
                }
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    LOG.error("Task failed on {}", name, e);
                }
            }
        } finally {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
            scheduled.set(false);
        }
        if (!tasks.isEmpty()) {
            scheduleIfIdle();
        }
    }

    @Override
    public String toString() {
        return "SerialExecutor[" + name + "]";
    }
}
