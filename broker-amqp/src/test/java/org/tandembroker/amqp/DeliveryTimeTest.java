package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Date;
import java.util.Map;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.codec.DecodeException;
import org.junit.jupiter.api.Test;

class DeliveryTimeTest {
    private static final long NOW = 1_700_000_000_000L;

    private static long deliverAt(Map<Symbol, Object> annotations) {
        return DeliveryTime.deliverAtMillis(annotations, NOW);
    }

    @Test
    void qpidJmsAbsoluteDeliveryTimeIsTakenAsItIs() {
        assertThat(deliverAt(Map.of(DeliveryTime.DELIVERY_TIME, NOW + 5_000))).isEqualTo(NOW + 5_000);
        assertThat(deliverAt(Map.of(DeliveryTime.DELIVERY_TIME, new Date(NOW + 7_000)))).isEqualTo(NOW + 7_000);
    }

    @Test
    void aRelativeDelayCountsFromReceiptAndTheAbsoluteTimeWinsWhenBothAreSent() {
        assertThat(deliverAt(Map.of(DeliveryTime.DELIVERY_DELAY, UnsignedInteger.valueOf(1_500))))
                .isEqualTo(NOW + 1_500);
        assertThat(deliverAt(Map.of(DeliveryTime.DELIVERY_DELAY, 1_500L, DeliveryTime.DELIVERY_TIME, NOW + 9)))
                .isEqualTo(NOW + 9);
    }

    @Test
    void aTimeNotInTheFutureOrNoAnnotationMeansAtOnce() {
        assertThat(deliverAt(null)).isZero();
        assertThat(deliverAt(Map.of())).isZero();
        assertThat(deliverAt(Map.of(DeliveryTime.DELIVERY_TIME, NOW))).isZero();
        assertThat(deliverAt(Map.of(DeliveryTime.DELIVERY_DELAY, -5L))).isZero();
        assertThat(deliverAt(Map.of(DeliveryTime.DELIVERY_DELAY, Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void anAnnotationOfAnotherTypeIsADecodeErrorNamingIt() {
        assertThatThrownBy(() -> deliverAt(Map.of(DeliveryTime.DELIVERY_TIME, "tomorrow")))
                .isInstanceOf(DecodeException.class).hasMessageContaining("x-opt-delivery-time");
        assertThatThrownBy(() -> deliverAt(Map.of(DeliveryTime.DELIVERY_DELAY, "soon")))
                .isInstanceOf(DecodeException.class).hasMessageContaining("x-opt-delivery-delay");
    }

    @Test
    void theCapabilityIsRecognisedAmongDesiredOnes() {
        assertThat(DeliveryTime.isDesired(new Symbol[] {Symbol.valueOf("x"), DeliveryTime.DELAYED_DELIVERY})).isTrue();
        assertThat(DeliveryTime.isDesired(null)).isFalse();
    }
}
