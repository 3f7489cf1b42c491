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
 */
public final class PrimaryDesignation {
    /** How long each other node gets to answer. */
    public static final int PING_TIMEOUT_MILLIS = 3000;

    private PrimaryDesignation() {
    }

    /** Why designating this node of {@code group} primary now risks a split brain; empty when no other is master. */
    public static Optional<String> splitBrainRisk(ReplicationControl group) {
        List<String> masters = new ArrayList<>();
        for (GroupMember member : group.groupMembers()) {
            if (member.name().equals(group.nodeName()) || !member.type().equals("ELECTABLE")) {
                continue;
            }
            try {
                PingAnswer answer = group.ping(member, PING_TIMEOUT_MILLIS);
                if (answer.state() == MemberState.MASTER) {
                    masters.add(member.name() + " (" + member.hostPort() + ")");
                }
            } catch (Exception e) {
                // no answer: down, or unreachable from here; the operator is responsible for telling them apart
            }
        }
        if (masters.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("refused to designate node " + group.nodeName() + " primary: node " + String.join(", ",
                masters) + " of group " + group.groupName() + " still answers as MASTER. Designating this node too "
                + "would make two masters (split brain): clients could work against both, and when they meet again "
                + "the transactions of one side are rolled back or the node refuses to rejoin. Stop the other "
                + "node's broker first; if it is running but cut off for good and will be stopped before the "
                + "network heals, force it: operation designatePrimary(true)");
    }
}
