package org.tandembroker.core.vhost;

/**
 * What a client says an address names, when it says (Qpid JMS marks a JMS Queue's terminus {@code queue} and a
 * Topic's {@code topic}; the anonymous relay carries it per message). A TOPIC address that names no exchange is
 * publish/subscribe through {@code amq.topic} with the address as routing (or binding) key.
 */
public enum AddressKind {
    /** The client did not say: queues, exchanges and auto-created queues by the address rules. */
    UNSPECIFIED,
    /** A queue (the address rules as for UNSPECIFIED). */
    QUEUE,
    /** A topic: an exchange address as written, or else {@code amq.topic} with the address as key. */
    TOPIC
}
