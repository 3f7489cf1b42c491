package org.tandembroker.amqp;

import java.util.Date;
import java.util.Map;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.codec.DecodeException;

/**
 * Delivery delay as AMQP clients ask for it. Qpid JMS (JMS 2 {@code setDeliveryDelay}) sends the message annotation
 * {@code x-opt-delivery-time}, the absolute time (epoch millis, a long or a timestamp), and sends it only to a peer
 * that offers the {@code DELAYED_DELIVERY} capability on the connection (or on the sending link when it desires
 * it); others (Artemis's clients) may send {@code x-opt-delivery-delay}, milliseconds from the broker's receipt.
 * When both are present the absolute time wins. A time not in the future means at once. Stateless.
 */
final class DeliveryTime {
    static final Symbol DELAYED_DELIVERY = Symbol.valueOf("DELAYED_DELIVERY");
    static final Symbol DELIVERY_TIME = Symbol.valueOf("x-opt-delivery-time");
    static final Symbol DELIVERY_DELAY = Symbol.valueOf("x-opt-delivery-delay");

    private DeliveryTime() {
    }

    /** Whether a link's desired capabilities ask for delayed delivery. */
    static boolean isDesired(Symbol[] desired) {
        if (desired != null) {
            for (Symbol capability : desired) {
                if (DELAYED_DELIVERY.equals(capability)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * When the message may be delivered (epoch millis), 0 for at once.
     *
     * @param messageAnnotations the message's annotations, may be null
     * @throws DecodeException when an annotation is not a number (or, for the time, a timestamp)
     */
    static long deliverAtMillis(Map<Symbol, Object> messageAnnotations, long nowMillis) {
        if (messageAnnotations == null || messageAnnotations.isEmpty()) {
            return 0;
        }
        Object time = messageAnnotations.get(DELIVERY_TIME);
        long deliverAt = 0;
        if (time != null) {
            if (time instanceof Number n) {
                deliverAt = n.longValue();
            } else if (time instanceof Date d) {
                deliverAt = d.getTime();
            } else {
                throw new DecodeException("message annotation x-opt-delivery-time must be a timestamp or a long "
                        + "(epoch milliseconds), not " + time.getClass().getSimpleName());
            }
        } else {
            Object delay = messageAnnotations.get(DELIVERY_DELAY);
            if (delay == null) {
                return 0;
            }
            if (!(delay instanceof Number n)) {
                throw new DecodeException("message annotation x-opt-delivery-delay must be a number of milliseconds, "
                        + "not " + delay.getClass().getSimpleName());
            }
            long millis = n.longValue();
            deliverAt = millis <= 0 ? 0 : millis > Long.MAX_VALUE - nowMillis ? Long.MAX_VALUE : nowMillis + millis;
        }
        return deliverAt > nowMillis ? deliverAt : 0;
    }
}
