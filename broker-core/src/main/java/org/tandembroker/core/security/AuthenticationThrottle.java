package org.tandembroker.core.security;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Slows down guessing: every SASL outcome (success or failure, so the delay does not give the answer away) for a
 * client address with recent authentication failures is held back by {@code initialDelay * 2^(n-1)}, at most
 * {@code maxDelay}, where n is that address's failures in the last {@link #WINDOW}. An address without recent
 * failures waits for nothing. The caller waits by scheduling, never by blocking a thread.
 * <p>Memory is bounded: failures of at most {@link #MAX_ADDRESSES} addresses are remembered (the least recently
 * failing are forgotten first), at most {@link #MAX_FAILURES_PER_ADDRESS} each.
 * <p>Thread-safe: methods synchronize on this object (the SASL path only, never the delivery path).
 */
public final class AuthenticationThrottle {
    static final Duration WINDOW = Duration.ofMinutes(1);
    static final int MAX_ADDRESSES = 10_000;
    static final int MAX_FAILURES_PER_ADDRESS = 32;

    private final long initialDelayNanos;
    private final long maxDelayNanos;
    private final LongSupplier nanoClock;
    private final Map<InetAddress, Deque<Long>> failures = new LinkedHashMap<>(16, 0.75f, true);

    public AuthenticationThrottle(Duration initialDelay, Duration maxDelay) {
        this(initialDelay, maxDelay, System::nanoTime);
    }

    AuthenticationThrottle(Duration initialDelay, Duration maxDelay, LongSupplier nanoClock) {
        this.initialDelayNanos = initialDelay.toNanos();
        this.maxDelayNanos = Math.max(maxDelay.toNanos(), initialDelayNanos);
        this.nanoClock = nanoClock;
    }

    /** No delay ever (tests, or {@code authFailureDelay="0"}). */
    public static AuthenticationThrottle off() {
        return new AuthenticationThrottle(Duration.ZERO, Duration.ZERO);
    }

    /** How long to hold back the outcome of an attempt from {@code remote} now (zero: none). */
    public synchronized Duration delayFor(SocketAddress remote) {
        InetAddress address = addressOf(remote);
        if (initialDelayNanos == 0 || address == null) {
            return Duration.ZERO;
        }
        Deque<Long> recent = failures.get(address);
        if (recent == null) {
            return Duration.ZERO;
        }
        expire(recent, nanoClock.getAsLong());
        if (recent.isEmpty()) {
            failures.remove(address);
            return Duration.ZERO;
        }
        int doublings = Math.min(recent.size() - 1, 30);
        long delay = initialDelayNanos << doublings;
        return Duration.ofNanos(delay <= 0 || delay > maxDelayNanos ? maxDelayNanos : delay);
    }

    /** Remembers a failed attempt from {@code remote}. */
    public synchronized void failed(SocketAddress remote) {
        InetAddress address = addressOf(remote);
        if (initialDelayNanos == 0 || address == null) {
            return;
        }
        long now = nanoClock.getAsLong();
        Deque<Long> recent = failures.computeIfAbsent(address, a -> new ArrayDeque<>());
        expire(recent, now);
        recent.addLast(now);
        while (recent.size() > MAX_FAILURES_PER_ADDRESS) {
            recent.removeFirst();
        }
        Iterator<InetAddress> eldest = failures.keySet().iterator();
        while (failures.size() > MAX_ADDRESSES && eldest.hasNext()) {
            eldest.next();
            eldest.remove();
        }
    }

    /** Addresses remembered (tests). */
    synchronized int trackedAddresses() {
        return failures.size();
    }

    private static void expire(Deque<Long> recent, long now) {
        long oldest = now - WINDOW.toNanos();
        while (!recent.isEmpty() && recent.peekFirst() - oldest < 0) {
            recent.removeFirst();
        }
    }

    private static InetAddress addressOf(SocketAddress remote) {
        return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }
}
