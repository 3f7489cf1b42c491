package org.tandembroker.amqp;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The open connections of one front end: counts them against the connection limit and lets shutdown reach each.
 * Thread-safe without locks (a concurrent set and an atomic count): connections come and go on every event loop.
 */
final class LiveConnections {
    private final Set<AmqpConnectionHandler> handlers = ConcurrentHashMap.newKeySet();
    private final AtomicInteger count = new AtomicInteger();
    private final int maxConnections;

    LiveConnections(int maxConnections) {
        this.maxConnections = maxConnections;
    }

    /** Adds a new connection; false when it is beyond the limit (it is counted anyway until removed). */
    boolean add(AmqpConnectionHandler handler) {
        handlers.add(handler);
        return count.incrementAndGet() <= maxConnections;
    }

    void remove(AmqpConnectionHandler handler) {
        if (handlers.remove(handler)) {
            count.decrementAndGet();
        }
    }

    List<AmqpConnectionHandler> snapshot() {
        return List.copyOf(handlers);
    }

    int size() {
        return count.get();
    }
}
