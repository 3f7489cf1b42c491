package org.tandembroker.systest.cluster;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One node's state as JE's {@code DbPing} reports it ({@link BrokerNode#ping()}): JE's view, independent of the
 * broker's logs and of JMX.
 *
 * @param state            MASTER, REPLICA, UNKNOWN, DETACHED
 * @param master           the master this node knows, if any
 * @param txnEndVlsn       the VLSN of the last transaction (commit or abort) in this node's log
 * @param masterTxnEndVlsn the last transaction VLSN this node knows the master to have (-1 if unknown)
 */
public record ReplicationStatus(String state, Optional<String> master, long txnEndVlsn, long masterTxnEndVlsn) {
    private static final Pattern STATE = Pattern.compile("(?m)^\\s*Current state: (\\S+)");
    private static final Pattern MASTER = Pattern.compile("(?m)^\\s*Current master: (\\S+)");
    private static final Pattern TXN_END = Pattern.compile("(?m)^\\s*Current transaction end \\(abort or commit\\) VLSN: (-?\\d+)");
    private static final Pattern MASTER_TXN_END =
            Pattern.compile("(?m)^\\s*Current master transaction end \\(abort or commit\\) VLSN: (-?\\d+)");

    /** Parses {@code DbPing}'s output ({@code NodeState.toString()}). */
    static ReplicationStatus parse(String output) {
        String state = group(STATE, output).orElseThrow(() -> new IllegalArgumentException("no state in: " + output));
        Optional<String> master = group(MASTER, output).filter(m -> !m.equals("null"));
        long txnEnd = group(TXN_END, output).map(Long::parseLong).orElse(-1L);
        long masterTxnEnd = group(MASTER_TXN_END, output).map(Long::parseLong).orElse(-1L);
        return new ReplicationStatus(state, master, txnEnd, masterTxnEnd);
    }

    public boolean isMaster() {
        return state.equals("MASTER");
    }

    public boolean isReplica() {
        return state.equals("REPLICA");
    }

    private static Optional<String> group(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
