package org.tandembroker.core.exec;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Threads named after their role ("queue-worker-1", "ha-default"), so thread dumps and logs say who is who.
 * A factory may also report each thread it creates, so that the owner of some state can later check that it
 * runs on that thread ({@link OwningThread}).
 */
public final class NamedThreadFactory implements ThreadFactory {
    private final String prefix;
    private final boolean numbered;
    private final boolean daemon;
    private final Consumer<Thread> created;
    private final AtomicInteger counter = new AtomicInteger();

    /** Numbered threads: {@code prefix-1}, {@code prefix-2}, ... */
    public NamedThreadFactory(String prefix, boolean daemon) {
        this(prefix, true, daemon, thread -> { });
    }

    private NamedThreadFactory(String prefix, boolean numbered, boolean daemon, Consumer<Thread> created) {
        this.prefix = Objects.requireNonNull(prefix);
        this.numbered = numbered;
        this.daemon = daemon;
        this.created = Objects.requireNonNull(created);
    }

    /** A daemon thread called exactly {@code name} (for single-thread executors), reported to {@code created}. */
    public static NamedThreadFactory daemonThread(String name, Consumer<Thread> created) {
        return new NamedThreadFactory(name, false, true, created);
    }

    /** A daemon thread called exactly {@code name}. */
    public static NamedThreadFactory daemonThread(String name) {
        return daemonThread(name, thread -> { });
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, numbered ? prefix + "-" + counter.incrementAndGet() : prefix);
        t.setDaemon(daemon);
        created.accept(t);
        return t;
    }
}
