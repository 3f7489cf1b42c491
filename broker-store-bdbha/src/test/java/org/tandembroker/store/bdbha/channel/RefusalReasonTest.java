package org.tandembroker.store.bdbha.channel;

import static org.assertj.core.api.Assertions.assertThat;

import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** Which failed replication connections are reported as refusals (HA-1008), and in which words. */
class RefusalReasonTest {

    @Test
    void aPeerThatEndsTheHandshakeWhileItShutsDownIsNotARefusal() {
        // Seen on the accepting node while the other node restarted in a rolling restart (CI, 27 Nov 2026).
        SSLHandshakeException aborted = new SSLHandshakeException(
                "Insufficient buffer remaining for AEAD cipher fragment (2). Needs to be more than tag size (16)");

        assertThat(RefusalReportingChannel.refusalReason(aborted, true, false)).isNull();
        assertThat(RefusalReportingChannel.refusalReason(aborted, true, true)).isNull();
    }

    @Test
    void anUntrustedCertificateIsStillReportedInOperatorsWords() {
        SSLHandshakeException untrusted = new SSLHandshakeException("PKIX path building failed: unable to find valid"
                + " certification path to requested target");

        assertThat(RefusalReportingChannel.refusalReason(untrusted, true, false))
                .startsWith("its certificate is not trusted here");
    }

    @Test
    void anyOtherHandshakeFailureIsReportedWithTheJdksWords() {
        SSLHandshakeException other = new SSLHandshakeException("No appropriate protocol");

        assertThat(RefusalReportingChannel.refusalReason(other, true, false))
                .isEqualTo("the TLS handshake failed: SSLHandshakeException: No appropriate protocol");
    }
}
