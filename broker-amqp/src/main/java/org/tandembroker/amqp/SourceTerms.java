package org.tandembroker.amqp;

import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.TerminusDurability;
import org.tandembroker.core.queue.MessageFilter;
import org.tandembroker.core.queue.SubscriptionOptions;

/**
 * A consuming link's source read into the core's {@link SubscriptionOptions}: settlement, durability (a durable
 * subscription is named {@code container-id:link-name}), the {@code topic}/{@code queue} capability, and the
 * filters. Stateless; runs on the connection's event loop.
 */
final class SourceTerms {
    private SourceTerms() {
    }

    static SubscriptionOptions read(Source source, boolean preSettled, String containerId, String linkName) {
        String durableName = source.getDurable() != null && source.getDurable() != TerminusDurability.NONE
                ? containerId + ":" + linkName
                : null;
        return new SubscriptionOptions(preSettled, durableName, TerminusCapabilities.kindOf(source.getCapabilities()),
                MessageFilter.ALL);
    }
}
