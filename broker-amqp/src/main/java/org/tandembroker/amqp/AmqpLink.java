package org.tandembroker.amqp;

import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;

/**
 * One attached link of a connection, kept as the Proton link's context. Every method runs on the connection's
 * event loop.
 */
interface AmqpLink {

    /** The peer's attach arrived: resolve the terminus with the core, then answer with our attach. */
    void attach();

    void onFlow();

    void onDelivery(Delivery delivery);

    /** The peer detached (or closed) the link: answer in kind and give back core resources. */
    void onRemoteDetach(boolean closed);

    /** The link's session or connection ended without a detach: give back core resources, send nothing. */
    void onEnded();

    /** The socket takes output again after it had stopped (Netty channel writability): resume sending. */
    default void onWritable() {
    }

    /**
     * Refuses an attach the way the spec asks: attach with a null local terminus, then detach with the error.
     */
    static void refuseAttach(Link link, ErrorCondition condition) {
        link.setSource(link instanceof Receiver ? link.getRemoteSource() : null);
        link.setTarget(link instanceof Receiver ? null : link.getRemoteTarget());
        link.open();
        link.setCondition(condition);
        link.close();
    }

    /**
     * The core could not resolve a link's address: a node that is no longer active closes the whole connection
     * (so failover clients move on); any other failure refuses just this attach.
     */
    static void refuseAttach(Link link, AmqpConnection connection, Throwable failure) {
        if (ErrorConditions.isNodeInactive(failure)) {
            connection.closeBecauseNodeInactive(failure);
        } else {
            refuseAttach(link, ErrorConditions.of(failure));
        }
    }

    /** Answers the peer's detach in kind (close for close, detach for detach) and frees the link. */
    static void answerDetach(Link link, boolean closedByPeer) {
        if (link.getLocalState() != EndpointState.CLOSED) {
            if (closedByPeer) {
                link.close();
            } else {
                link.detach();
            }
        }
        link.free();
    }
}
