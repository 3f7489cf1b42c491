package org.tandembroker.core.queue;

/**
 * The receiving end of a subscription, implemented by a front end's outgoing link. Every method is called on the
 * queue's own executor and must not block: an implementation hands the work to its connection's thread.
 */
public interface ConsumerTarget {

    /** One message, taken from the consumer's credit. Settle it with the {@link Delivery}'s methods. */
    void deliver(Delivery delivery);

    /** A drain request found no more messages: the link's remaining credit is spent. */
    void drained();

    /** The broker ended the subscription (queue deleted, virtual host passivated): detach the link. */
    void closedByBroker(String reason);
}
