package org.tandembroker.amqp;

import org.apache.qpid.proton.engine.Collector;
import org.apache.qpid.proton.engine.Event;

/**
 * The one switch that turns Proton's collected events into typed calls on a {@link ProtonEventListener}.
 * Events nobody needs (local state changes, finals, bound/unbound) are dropped here.
 *
 * <p>Thread: the connection's event loop; stateless apart from the collector it drains.
 */
final class ProtonEventDispatcher {
    private final Collector collector;
    private final ProtonEventListener listener;

    ProtonEventDispatcher(Collector collector, ProtonEventListener listener) {
        this.collector = collector;
        this.listener = listener;
    }

    /** Handles every collected event, including those raised while handling. */
    void dispatchAll() {
        for (Event event = collector.peek(); event != null; event = collector.peek()) {
            try {
                dispatch(event);
            } finally {
                collector.pop();
            }
        }
    }

    private void dispatch(Event event) {
        switch (event.getType()) {
            case CONNECTION_REMOTE_OPEN -> listener.onConnectionRemoteOpen(event.getConnection());
            case CONNECTION_REMOTE_CLOSE -> listener.onConnectionRemoteClose(event.getConnection());
            case SESSION_REMOTE_OPEN -> listener.onSessionRemoteOpen(event.getSession());
            case SESSION_REMOTE_CLOSE -> listener.onSessionRemoteClose(event.getSession());
            case LINK_REMOTE_OPEN -> listener.onLinkRemoteOpen(event.getLink());
            case LINK_REMOTE_DETACH -> listener.onLinkRemoteDetach(event.getLink(), false);
            case LINK_REMOTE_CLOSE -> listener.onLinkRemoteDetach(event.getLink(), true);
            case LINK_FLOW -> listener.onLinkFlow(event.getLink());
            case DELIVERY -> listener.onDelivery(event.getDelivery());
            case TRANSPORT_ERROR -> listener.onTransportError(event.getTransport().getCondition());
            default -> {
                // not needed: local state changes, init/final, transport head/tail closed
            }
        }
    }
}
