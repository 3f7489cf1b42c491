package org.tandembroker.core.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AuthenticationThrottleTest {
    private final AtomicLong now = new AtomicLong();
    private final AuthenticationThrottle throttle = new AuthenticationThrottle(Duration.ofMillis(250),
            Duration.ofSeconds(5), now::get);
    private final InetSocketAddress attacker = new InetSocketAddress("192.0.2.1", 1000);
    private final InetSocketAddress attackerOtherPort = new InetSocketAddress("192.0.2.1", 2000);
    private final InetSocketAddress bystander = new InetSocketAddress("192.0.2.2", 1000);

    @Test
    void theDelayDoublesWithEachRecentFailureFromAnAddressUpToTheBound() {
        assertThat(throttle.delayFor(attacker)).isZero();
        throttle.failed(attacker);
        assertThat(throttle.delayFor(attackerOtherPort)).isEqualTo(Duration.ofMillis(250));
        throttle.failed(attacker);
        assertThat(throttle.delayFor(attacker)).isEqualTo(Duration.ofMillis(500));
        for (int i = 0; i < 10; i++) {
            throttle.failed(attacker);
        }
        assertThat(throttle.delayFor(attacker)).isEqualTo(Duration.ofSeconds(5));
        assertThat(throttle.delayFor(bystander)).isZero();
    }

    @Test
    void failuresOlderThanTheWindowNoLongerCount() {
        throttle.failed(attacker);
        throttle.failed(attacker);
        now.addAndGet(AuthenticationThrottle.WINDOW.toNanos() + 1);

        assertThat(throttle.delayFor(attacker)).isZero();
        assertThat(throttle.trackedAddresses()).isZero();
    }

    @Test
    void aZeroDelaySwitchesItOff() {
        AuthenticationThrottle off = AuthenticationThrottle.off();
        off.failed(attacker);

        assertThat(off.delayFor(attacker)).isZero();
    }

    @Test
    void memoryIsBoundedByForgettingTheLeastRecentlyFailingAddresses() throws Exception {
        for (int i = 0; i < AuthenticationThrottle.MAX_ADDRESSES + 50; i++) {
            throttle.failed(new InetSocketAddress(java.net.InetAddress.getByAddress(new byte[]{10, 0,
                    (byte) (i >> 8), (byte) i}), 1));
        }
        assertThat(throttle.trackedAddresses()).isEqualTo(AuthenticationThrottle.MAX_ADDRESSES);
    }
}
