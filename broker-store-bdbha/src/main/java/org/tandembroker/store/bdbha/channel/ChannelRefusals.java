package org.tandembroker.store.bdbha.channel;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where one node (a store, an arbiter, a tool) hears that its replication channel refused a peer, as one line per
 * peer and reason: JE retries a refused connection every second or so, so a repeat of the same refusal is reported
 * again only after {@link #REPEAT_AFTER_MILLIS}. JE creates the channel factory, authenticator and host verifier by
 * class name, so they find this object through a token in the network configuration ({@link #token()}).
 *
 * <p><b>Threads.</b> Called on JE's channel threads (its service dispatcher, its connecting threads); the state is
 * concurrent maps of timestamps and counters, so any thread may call it.
 */
public final class ChannelRefusals implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelRefusals.class);
    private static final Map<String, ChannelRefusals> REGISTERED = new ConcurrentHashMap<>();
    /** A refusal of the same peer for the same reason is reported again after this long. */
    static final long REPEAT_AFTER_MILLIS = TimeUnit.MINUTES.toMillis(5);
    /** Closed connections in a row without an answer before a plain channel reports a probable TLS peer. */
    static final int SILENT_CLOSES_BEFORE_REPORT = 3;
    /**
     * How long such closes must have gone on before they are reported: a node that is starting or stopping closes
     * connections for a moment (three within half a second were seen while a peer's replication service started), a
     * misconfigured one for good.
     */
    static final long SILENT_CLOSES_REPORT_AFTER_MILLIS = TimeUnit.SECONDS.toMillis(10);

    /** Receives one refusal: the peer ("from ADDRESS" or "to ADDRESS") and the reason, for operators. */
    @FunctionalInterface
    public interface Sink {
        void refused(String peer, String reason);
    }

    private final String token;
    private final Sink sink;
    private final LongSupplier clock;
    private final Map<String, Long> lastReported = new ConcurrentHashMap<>();
    private final Map<String, SilentCloses> silentCloses = new ConcurrentHashMap<>();

    /** Connections to one peer closed in a row without an answer, and when the first of them was. */
    private record SilentCloses(int count, long since) {
        SilentCloses plusOne() {
            return new SilentCloses(count + 1, since);
        }
    }

    private ChannelRefusals(String token, Sink sink, LongSupplier clock) {
        this.token = token;
        this.sink = sink;
        this.clock = clock;
    }

    /** Registers a node's sink; close the result when the node stops. */
    public static ChannelRefusals register(String nodeName, Sink sink) {
        String token = nodeName + "#" + UUID.randomUUID();
        ChannelRefusals refusals = new ChannelRefusals(token, sink, System::currentTimeMillis);
        REGISTERED.put(token, refusals);
        return refusals;
    }

    /** Unregistered, with its own clock: for tests. */
    static ChannelRefusals withClock(Sink sink, LongSupplier clock) {
        return new ChannelRefusals("test", sink, clock);
    }

    /** The registered refusals of {@code token}; an unknown token (none registered) reports to this class's log. */
    static ChannelRefusals of(String token) {
        ChannelRefusals refusals = token == null ? null : REGISTERED.get(token);
        if (refusals != null) {
            return refusals;
        }
        return new ChannelRefusals("unregistered", (peer, reason) ->
                LOG.warn("Replication connection refused : {} : {}", peer, reason), System::currentTimeMillis);
    }

    /** What the network configuration carries to find this object. */
    public String token() {
        return token;
    }

    /** Reports a refusal, unless the same one was reported within {@link #REPEAT_AFTER_MILLIS}. */
    void refused(String peer, String reason) {
        long now = clock.getAsLong();
        String key = peer + "\n" + reason;
        Long last = lastReported.get(key);
        if (last != null && now - last < REPEAT_AFTER_MILLIS) {
            return;
        }
        lastReported.put(key, now);
        sink.refused(peer, reason);
    }

    /**
     * A connection to {@code peerHost} was closed before any answer; after a few in a row, over at least
     * {@link #SILENT_CLOSES_REPORT_AFTER_MILLIS}, this is reported (a TLS peer closes a plain connection without a
     * word, a plain peer a TLS one; so does a node that is starting or stopping, hence the count and the time).
     */
    void closedWithoutAnswer(String peerHost, String peer, boolean tls) {
        long now = clock.getAsLong();
        SilentCloses run = silentCloses.merge(peerHost, new SilentCloses(1, now), (old, first) -> old.plusOne());
        if (run.count() >= SILENT_CLOSES_BEFORE_REPORT && now - run.since() >= SILENT_CLOSES_REPORT_AFTER_MILLIS) {
            refused(peer, tls
                    ? "it closed " + SILENT_CLOSES_BEFORE_REPORT + " or more connections in a row during the TLS "
                    + "handshake: it probably speaks plain TCP on replication (no <replicationTls>) while this node "
                    + "requires TLS; configure every node of the group the same way"
                    : "it closed " + SILENT_CLOSES_BEFORE_REPORT + " or more connections in a row before answering: "
                    + "it probably requires TLS on replication (<replicationTls>) while this node speaks plain TCP; "
                    + "configure every node of the group the same way");
        }
    }

    /** A connection to {@code peerHost} was answered: the count of silent closes starts again. */
    void answered(String peerHost) {
        silentCloses.remove(peerHost);
    }

    @Override
    public void close() {
        REGISTERED.remove(token);
    }
}
