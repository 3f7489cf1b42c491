package org.tandembroker.store.bdbha.channel;

import com.sleepycat.je.rep.net.DataChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;
import javax.net.ssl.SSLException;

/**
 * One replication connection, JE's channel with a watch on its opening: until the peer first answers, a failure
 * or a first byte that shows a refusal is reported to {@link ChannelRefusals} with the reason in operators' words.
 * After that it only passes calls through.
 *
 * <ul>
 *   <li>TLS handshake failures: the peer's certificate is not trusted here (or expired), ours is not trusted there
 *       (a TLS alert), plain TCP where TLS was expected;</li>
 *   <li>a plain channel receiving a TLS handshake record (a TLS node connecting to a plain one);</li>
 *   <li>a TLS client whose service request is answered with JE's {@code AUTHENTICATE}: the peer refused this
 *       node's certificate after the handshake (its authenticator: an untrusted certificate, which Java lets
 *       through the handshake when client authentication is only wanted, or a name outside its allow-list);</li>
 *   <li>a client whose connections are closed without an answer, again and again (a TLS node refusing plain
 *       TCP says nothing else, nor does a plain node refusing a TLS handshake).</li>
 * </ul>
 *
 * <p><b>Threads.</b> JE uses a channel from one thread at a time (its dispatcher, then the service that took it);
 * {@code answered} is volatile because that thread changes.
 */
final class RefusalReportingChannel extends ForwardingDataChannel {
    /** The first byte of a TLS record carrying a handshake (a ClientHello). */
    private static final byte TLS_HANDSHAKE_RECORD = 0x16;
    /** JE's service handshake response asking the client to authenticate (ServiceDispatcher.Response ordinal). */
    private static final byte JE_AUTHENTICATE_RESPONSE = 6;
    /** JE's own message when the host verifier refused the peer (already reported by the verifier). */
    private static final String VERIFIER_REFUSED = "Server identity could not be verified";
    /**
     * What the JDK says when a peer ends a TLS 1.3 handshake with an unencrypted alert after the keys were agreed:
     * a node shutting down or restarting in the middle of a handshake (seen in a rolling restart), not a refusal.
     */
    private static final String ABORTED_HANDSHAKE = "insufficient buffer remaining for aead cipher fragment";

    private final boolean client;
    private final boolean tls;
    private final String peerKey;
    private final String peer;
    private final ChannelRefusals refusals;
    private volatile boolean answered;

    RefusalReportingChannel(DataChannel delegate, boolean client, boolean tls, String peerKey, String peer,
                            ChannelRefusals refusals) {
        super(delegate);
        this.client = client;
        this.tls = tls;
        this.peerKey = peerKey;
        this.peer = peer;
        this.refusals = refusals;
    }

    @Override
    public long read(ByteBuffer[] destinations, int offset, int length) throws IOException {
        if (answered) {
            return delegate.read(destinations, offset, length);
        }
        int[] positions = new int[length];
        for (int i = 0; i < length; i++) {
            positions[i] = destinations[offset + i].position();
        }
        long count;
        try {
            count = delegate.read(destinations, offset, length);
        } catch (IOException e) {
            failed(e);
            throw e;
        }
        if (count > 0) {
            for (int i = 0; i < length; i++) {
                ByteBuffer buffer = destinations[offset + i];
                if (buffer.position() > positions[i]) {
                    firstByte(buffer.get(positions[i]));
                    break;
                }
            }
        } else if (count < 0 && client) {
            refusals.closedWithoutAnswer(peerKey, peer, tls);
        }
        return count;
    }

    private void firstByte(byte first) {
        answered = true;
        if (!tls && !client && first == TLS_HANDSHAKE_RECORD) {
            refusals.refused(peer, "it speaks TLS but this node's replication channel is plain TCP (no "
                    + "<replicationTls>); configure every node of the group the same way");
        } else if (tls && client && first == JE_AUTHENTICATE_RESPONSE) {
            refusals.refused(peer, "it refused this node's certificate: not signed by an authority in its trust "
                    + "store, or a name its <allowedNodes> does not allow (its own HA-1008 line says which)");
        } else if (client) {
            refusals.answered(peerKey);
        }
    }

    private void failed(IOException e) {
        if (answered) {
            return;
        }
        String reason = refusalReason(e, tls, client);
        if (reason != null) {
            answered = true; // one report per connection
            refusals.refused(peer, reason);
        } else if (client) {
            refusals.closedWithoutAnswer(peerKey, peer, tls);
        }
    }

    /**
     * Why a connection failed, in operators' words; null when it is not a refusal (a reset, a shutdown, a peer
     * closing in the middle of the handshake).
     *
     * @param tls    whether the channel is TLS
     * @param client whether this node opened the connection
     */
    static String refusalReason(IOException e, boolean tls, boolean client) {
        String messages = messages(e);
        String lower = messages.toLowerCase(Locale.ROOT);
        if (!tls) {
            return null;
        }
        if (messages.contains(VERIFIER_REFUSED) || lower.contains("close_notify")
                || lower.contains("remote host terminated") || lower.contains(ABORTED_HANDSHAKE)) {
            return null; // the verifier said why; a peer closing mid-handshake is counted, not reported at once
        }
        if (lower.contains("unsupported or unrecognized ssl message") || lower.contains("plaintext connection")) {
            return client
                    ? "it answered in plain TCP: its replication channel is not TLS while this node's is "
                    + "(<replicationTls>); configure every node of the group the same way"
                    : "it speaks plain TCP but this node's replication channel requires TLS (<replicationTls>); "
                    + "configure every node of the group the same way";
        }
        int alert = lower.indexOf("received fatal alert: ");
        if (alert >= 0) {
            String name = lower.substring(alert + "received fatal alert: ".length()).split("[\\s;,)]", 2)[0];
            if (name.contains("certificate") || name.equals("unknown_ca") || name.equals("access_denied")) {
                return "it refused this node's certificate (TLS alert " + name + "): this node's certificate is "
                        + "not signed by an authority in its trust store, or has expired";
            }
            return "the TLS handshake failed (TLS alert " + name + "): the nodes share no TLS version or cipher "
                    + "suite (<protocols>), or one refused the other";
        }
        if (causedBy(e, CertificateExpiredException.class) || causedBy(e, CertificateNotYetValidException.class)) {
            return "its certificate is outside its validity period: " + firstLine(messages);
        }
        if (lower.contains("pkix") || lower.contains("certification path") || lower.contains("certpath")) {
            return "its certificate is not trusted here: it is not signed by an authority in this node's trust "
                    + "store (<trustStore>)";
        }
        if (lower.contains("empty client certificate chain") || lower.contains("null cert chain")) {
            return "it presented no certificate; every node needs one signed by an authority in the trust store";
        }
        if (e instanceof SSLException || causedBy(e, SSLException.class)) {
            return "the TLS handshake failed: " + firstLine(messages);
        }
        return null;
    }

    private static String messages(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append(" | ");
        }
        return text.toString();
    }

    private static String firstLine(String messages) {
        int end = messages.indexOf(" | ");
        String first = end < 0 ? messages : messages.substring(0, end);
        return first.replace('\n', ' ');
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        try {
            return delegate.write(sources, offset, length);
        } catch (IOException e) {
            failed(e);
            throw e;
        }
    }

    @Override
    public FlushStatus flush() throws IOException {
        try {
            return delegate.flush();
        } catch (IOException e) {
            failed(e);
            throw e;
        }
    }
}
