package org.tandembroker.amqp;

import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Session;

/** The Proton events a connection acts on, as typed calls from {@link ProtonEventDispatcher}. */
interface ProtonEventListener {

    void onConnectionRemoteOpen(Connection connection);

    void onConnectionRemoteClose(Connection connection);

    void onSessionRemoteOpen(Session session);

    void onSessionRemoteClose(Session session);

    void onLinkRemoteOpen(Link link);

    /** The peer detached the link; {@code closed} says whether it also closed it (destroying its terminus). */
    void onLinkRemoteDetach(Link link, boolean closed);

    void onLinkFlow(Link link);

    void onDelivery(Delivery delivery);

    /** Proton found a framing or decoding error; its close frame carries {@code condition}. */
    void onTransportError(ErrorCondition condition);
}
