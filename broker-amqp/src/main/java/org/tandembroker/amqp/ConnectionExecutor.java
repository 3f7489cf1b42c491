package org.tandembroker.amqp;

/**
 * Runs work on a connection's event loop. Core futures complete on core and store threads and the core calls a
 * consumer from its queue threads; all of them come back through here before touching Proton objects. After the
 * task the connection's pending Proton events are handled and its output is written.
 */
interface ConnectionExecutor {

    /**
     * Queues {@code task} for the connection's event loop.
     *
     * @return false when the event loop no longer runs (the front end is shut down): the task will never run
     */
    boolean execute(Runnable task);

    /**
     * Runs {@code task} on the connection's event loop after {@code delay}, without blocking it.
     *
     * @return false when the event loop no longer runs: the task will never run
     */
    boolean schedule(Runnable task, java.time.Duration delay);

    /** True on the connection's event loop: everything that touches Proton objects asserts it. */
    boolean inEventLoop();
}
