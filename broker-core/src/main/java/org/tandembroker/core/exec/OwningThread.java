package org.tandembroker.core.exec;

/**
 * The one thread allowed to touch some state (the single-writer principle), checked where it matters with
 * {@code assert owner.isCurrent()}: the check runs in tests and under {@code -ea}, and costs nothing otherwise.
 *
 * <p>The thread is learnt when it is created ({@link NamedThreadFactory#daemonThread(String,
 * java.util.function.Consumer)} reports it to {@link #adopt}). Thread-safe.
 */
public final class OwningThread {
    private final String role;
    private volatile Thread thread;

    public OwningThread(String role) {
        this.role = role;
    }

    /** Records the thread that owns the state; called from the thread factory. */
    public void adopt(Thread owner) {
        this.thread = owner;
    }

    /** True when called on the owning thread (or before any thread was adopted, e.g. during construction). */
    public boolean isCurrent() {
        Thread owner = thread;
        return owner == null || owner == Thread.currentThread();
    }

    /** For an assertion's message: {@code assert owner.isCurrent() : owner.violation();} */
    public String violation() {
        return "must run on the " + role + " thread (" + thread + "), not on " + Thread.currentThread().getName();
    }

    @Override
    public String toString() {
        return "OwningThread[" + role + "]";
    }
}
