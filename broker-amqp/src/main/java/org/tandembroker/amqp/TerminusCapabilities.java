package org.tandembroker.amqp;

import java.util.Map;
import org.apache.qpid.proton.amqp.Symbol;
import org.tandembroker.core.vhost.AddressKind;

/**
 * What a terminus's capabilities (and the anonymous relay's per-message annotation) say the address names: Qpid JMS
 * marks a JMS Queue {@code queue}, a Topic {@code topic}, and on the relay sets {@code x-opt-jms-dest} (0 queue,
 * 1 topic, 2 temporary queue, 3 temporary topic). Stateless.
 */
final class TerminusCapabilities {
    static final Symbol QUEUE = Symbol.valueOf("queue");
    static final Symbol TOPIC = Symbol.valueOf("topic");
    static final Symbol JMS_DESTINATION = Symbol.valueOf("x-opt-jms-dest");

    private TerminusCapabilities() {
    }

    /** The kind the capabilities give; UNSPECIFIED for none (or neither {@code topic} nor {@code queue}). */
    static AddressKind kindOf(Symbol[] capabilities) {
        if (capabilities != null) {
            for (Symbol capability : capabilities) {
                if (TOPIC.equals(capability)) {
                    return AddressKind.TOPIC;
                }
                if (QUEUE.equals(capability)) {
                    return AddressKind.QUEUE;
                }
            }
        }
        return AddressKind.UNSPECIFIED;
    }

    /** The kind of a relayed message's {@code to}, from its message annotations (may be null). */
    static AddressKind kindOf(Map<Symbol, Object> messageAnnotations) {
        if (messageAnnotations == null) {
            return AddressKind.UNSPECIFIED;
        }
        Object type = messageAnnotations.get(JMS_DESTINATION);
        if (type instanceof Number n) {
            return switch (n.intValue()) {
                case 0 -> AddressKind.QUEUE;
                case 1 -> AddressKind.TOPIC;
                default -> AddressKind.UNSPECIFIED;
            };
        }
        return AddressKind.UNSPECIFIED;
    }
}
