package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class SaslMechanismsTest {
    private static final InetSocketAddress OTHER_MACHINE = new InetSocketAddress("192.0.2.50", 41000);
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 41000);

    @Test
    void plainIsNotOfferedOnPlainTcpFromAnotherMachine() {
        assertThat(SaslMechanisms.offered(false, OTHER_MACHINE, false, false, false))
                .containsExactly("SCRAM-SHA-512", "SCRAM-SHA-256");
    }

    @Test
    void plainIsOfferedOverTlsFromLoopbackOrWhenTheSwitchAllowsIt() {
        assertThat(SaslMechanisms.offered(true, OTHER_MACHINE, false, false, false)).contains("PLAIN");
        assertThat(SaslMechanisms.offered(false, LOOPBACK, false, false, false)).contains("PLAIN");
        assertThat(SaslMechanisms.offered(false, OTHER_MACHINE, false, true, false)).contains("PLAIN");
    }

    @Test
    void externalComesFirstWithATrustedCertificateAndAnonymousLastWhenEnabled() {
        assertThat(SaslMechanisms.offered(true, OTHER_MACHINE, true, false, true))
                .containsExactly("EXTERNAL", "SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN", "ANONYMOUS");
    }
}
