package org.tandembroker.management.ha;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.tandembroker.core.store.replication.GroupMember;
import org.tandembroker.core.store.replication.MemberState;
import org.tandembroker.core.store.replication.PingAnswer;
import org.tandembroker.core.store.replication.ReplicationControl;

/**
 * Designating this node primary (spec 1.6.3) is safe only when the other node of the pair is really down. JE
 * cannot tell a dead master from a partitioned one, and neither can this node; but the operator's tool can ask
 * the other node directly. When it still answers as MASTER, designating this node too makes two masters (split
 * brain), so the designation is refused with that explanation unless the operator forces it.
 *
 * <p>Each other node gets {@link #PING_TIMEOUT_MILLIS} to answer, in all (connecting and replying): a node whose
 * port accepts connections but whose process is stopped or hung counts as not answering, so the check ends in
 * bounded time and its account names the nodes that did not answer (the operator decides whether they are down or
 * merely unreachable).
 */
public final class PrimaryDesignation {
    /** How long each other node gets to answer. */
    public static final int PING_TIMEOUT_MILLIS = 3000;

    private PrimaryDesignation() {
    }

    /**
     * What the other electable nodes of a group said when asked before designating this node.
     *
     * @param node     this node
     * @param group    the group
     * @param masters  the nodes that answered as MASTER ({@code name (host:port)})
     * @param answered the nodes that answered in another state ({@code name (host:port) STATE})
     * @param silent   the nodes that did not answer ({@code name (host:port): why})
     */
    public record Check(String node, String group, List<String> masters, List<String> answered,
            List<String> silent) {
        public Check {
            masters = List.copyOf(masters);
            answered = List.copyOf(answered);
            silent = List.copyOf(silent);
        }

        /** Why designating this node now risks a split brain; empty when no other node answered as MASTER. */
        public Optional<String> splitBrainRisk() {
            if (masters.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of("refused to designate node " + node + " primary: node " + String.join(", ", masters)
                    + " of group " + group + " still answers as MASTER. Designating this node too would make two "
                    + "masters (split brain): clients could work against both, and when they meet again the "
                    + "transactions of one side are rolled back or the node refuses to rejoin. Stop the other "
                    + "node's broker first; if it is running but cut off for good and will be stopped before the "
                    + "network heals, force it: operation designatePrimary(true)"
                    + (silent.isEmpty() ? "" : ". Did not answer: " + String.join("; ", silent)));
        }

        /** One line for the operator: what each other node said. */
        public String account() {
            List<String> parts = new ArrayList<>();
            if (!answered.isEmpty()) {
                parts.add("answered: " + String.join(", ", answered));
            }
            if (!silent.isEmpty()) {
                parts.add("did not answer within " + PING_TIMEOUT_MILLIS / 1000 + " s, so not known to be down "
                        + "(make sure it is stopped, not merely unreachable, or it may still be master): "
                        + String.join("; ", silent));
            }
            return parts.isEmpty() ? "no other electable node in the group" : String.join("; ", parts);
        }
    }

    /** Asks every other electable node of {@code group} for its state, each for at most the ping timeout. */
    public static Check check(ReplicationControl group) {
        List<String> masters = new ArrayList<>();
        List<String> answered = new ArrayList<>();
        List<String> silent = new ArrayList<>();
        for (GroupMember member : group.groupMembers()) {
            if (member.name().equals(group.nodeName()) || !member.type().equals("ELECTABLE")) {
                continue;
            }
            String named = member.name() + " (" + member.hostPort() + ")";
            try {
                PingAnswer answer = group.ping(member, PING_TIMEOUT_MILLIS);
                if (answer.state() == MemberState.MASTER) {
                    masters.add(named);
                } else {
                    answered.add(named + " " + answer.state());
                }
            } catch (Exception e) {
                // down, stopped or unreachable from here: the operator is responsible for telling them apart
                silent.add(named + ": " + e.getMessage());
            }
        }
        return new Check(group.nodeName(), group.groupName(), masters, answered, silent);
    }
}
