package org.tandembroker.amqp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.qpid.proton.amqp.DescribedType;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.TerminusDurability;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.tandembroker.core.queue.MessageFilter;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.selector.Selector;
import org.tandembroker.core.selector.SelectorException;
import org.tandembroker.core.vhost.AddressKind;

/**
 * A consuming link's source read into the core's {@link SubscriptionOptions}: settlement, durability (a durable
 * subscription is named {@code container-id:link-name}), the {@code topic}/{@code queue} capability, and the
 * filters: a JMS selector ({@code apache.org:selector-filter:string}, what Qpid JMS sends under the key
 * {@code jms-selector}, or a plain string under that key) and no-local ({@code apache.org:no-local-filter:list}), and
 * distribution-mode {@code copy} (a browser).
 * Stateless; runs on the connection's event loop.
 */
final class SourceTerms {
    static final Symbol SELECTOR_FILTER = Symbol.valueOf("apache.org:selector-filter:string");
    static final UnsignedLong SELECTOR_FILTER_CODE = UnsignedLong.valueOf(0x0000468C00000004L);
    static final Symbol NO_LOCAL_FILTER = Symbol.valueOf("apache.org:no-local-filter:list");
    static final UnsignedLong NO_LOCAL_FILTER_CODE = UnsignedLong.valueOf(0x0000468C00000003L);
    static final Symbol JMS_SELECTOR_KEY = Symbol.valueOf("jms-selector");
    /** The distribution mode of a browser (JMS QueueBrowser): messages are copied, not moved. */
    static final Symbol COPY = Symbol.valueOf("copy");

    private SourceTerms() {
    }

    /** A source the broker cannot honour; the attach is refused with {@link #condition()}. */
    static final class Refused extends Exception {
        private final transient ErrorCondition condition;

        Refused(Symbol error, String description) {
            super(description);
            this.condition = ErrorConditions.condition(error, description);
        }

        ErrorCondition condition() {
            return condition;
        }
    }

    /**
     * @param connectionIdentity the consuming connection (no-local skips what it published)
     * @throws Refused amqp:invalid-field for a selector that does not parse (with the parse error),
     *                 amqp:not-implemented for a filter the broker does not know
     */
    static SubscriptionOptions read(Source source, boolean preSettled, String containerId, String linkName,
                                    String connectionIdentity) throws Refused {
        String durableName = source.getDurable() != null && source.getDurable() != TerminusDurability.NONE
                ? containerId + ":" + linkName
                : null;
        AddressKind kind = TerminusCapabilities.kindOf(source.getCapabilities());
        // Qpid JMS asks for copy on topic subscriptions too: there it means a copy per subscriber, not a browser.
        boolean browsing = COPY.equals(source.getDistributionMode()) && kind != AddressKind.TOPIC;
        return new SubscriptionOptions(preSettled, durableName, kind, filter(source.getFilter(), connectionIdentity),
                browsing);
    }

    private static MessageFilter filter(Map<?, ?> filters, String connectionIdentity) throws Refused {
        if (filters == null || filters.isEmpty()) {
            return MessageFilter.ALL;
        }
        Selector selector = null;
        boolean noLocal = false;
        List<Object> unknown = new ArrayList<>();
        for (Map.Entry<?, ?> filter : filters.entrySet()) {
            Object value = filter.getValue();
            Object descriptor = value instanceof DescribedType described ? described.getDescriptor() : null;
            if (SELECTOR_FILTER.equals(descriptor) || SELECTOR_FILTER_CODE.equals(descriptor)) {
                selector = selector(((DescribedType) value).getDescribed());
            } else if (JMS_SELECTOR_KEY.equals(filter.getKey()) && value instanceof String text) {
                selector = selector(text);
            } else if (NO_LOCAL_FILTER.equals(descriptor) || NO_LOCAL_FILTER_CODE.equals(descriptor)) {
                noLocal = true;
            } else {
                unknown.add(filter.getKey());
            }
        }
        if (!unknown.isEmpty()) {
            throw new Refused(AmqpError.NOT_IMPLEMENTED, "unsupported source filters " + unknown
                    + " (supported: " + SELECTOR_FILTER + ", " + NO_LOCAL_FILTER + ")");
        }
        return new MessageFilter(selector, noLocal ? connectionIdentity : null);
    }

    private static Selector selector(Object text) throws Refused {
        if (!(text instanceof String s)) {
            throw new Refused(AmqpError.INVALID_FIELD, "a selector filter must hold a string, not " + text);
        }
        try {
            return Selector.parse(s);
        } catch (SelectorException e) {
            throw new Refused(AmqpError.INVALID_FIELD, e.getMessage());
        }
    }
}
