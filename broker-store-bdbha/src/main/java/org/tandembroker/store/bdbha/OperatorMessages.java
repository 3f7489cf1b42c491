package org.tandembroker.store.bdbha;

import java.nio.file.Path;
import java.util.List;

/**
 * The long operator-facing texts of the replicated store (rollbacks, split brain, conflicting designations, quorum,
 * hand-over, network restore), in one place so that the control flow around them stays readable and the texts
 * stay identical where the docs and tests quote them. Stateless.
 */
final class OperatorMessages {

    private OperatorMessages() {
    }

    // ---- opening the environment ----

    /** Why a node whose rollback JE refuses (RollbackProhibitedException) stops, and how the operator decides. */
    static String rollbackProhibited(String nodeName, Path storePath, long truncationFile, long truncationOffset) {
        return "node " + nodeName + " would have to roll back more acknowledged transactions than "
                + "je.rep.txnRollbackLimit allows (it committed alone, e.g. as designated primary during a "
                + "partition, what the group's master never received: a split brain); an operator must choose: "
                + "to discard this node's diverged transactions stop the broker, run java -cp 'lib/*' "
                + "com.sleepycat.je.util.DbTruncateLog -h " + storePath + " -f 0x"
                + Long.toHexString(truncationFile) + " -o 0x"
                + Long.toHexString(truncationOffset) + " and start it again (or raise "
                + "je.rep.txnRollbackLimit in <repConfig>); see docs/ha.md, split brain";
    }

    static String storeInUse(Path storePath, String cause) {
        return "the store directory " + storePath + " is in use by another process or store: " + cause;
    }

    /** Both nodes of a two-node group designated primary: JE refuses the second at the point of contact. */
    static String conflictingDesignation(String nodeName) {
        return "node " + nodeName + " and the current master are both designated primary; in a "
                + "two-node group at most one node may have <designatedPrimary> true (the spec: both cannot be "
                + "designated at the point of contact): set it false on this node or on the other one";
    }

    /** HA-1002: this designated node reached a designated master and joins it undesignated (figure 1.3). */
    static String designationYielded(String master) {
        return "not designated primary any more: master " + master + " is designated primary, and a group has at "
                + "most one designated node; joining it as a replica (until this broker restarts: set "
                + "<designatedPrimary> in the virtual host files to match, docs/operations.md figure 1.3)";
    }

    // ---- HA-1004: rollbacks ----

    /** HA-1004 at run time: JE rolled back this node's transactions from {@code earliestTransaction} on. */
    static String rollbackDiscarded(long earliestTransaction, boolean replicaAckNone) {
        return "diverged transactions discarded: those this node committed from transaction " + earliestTransaction
                + " on never reached the new master (" + whatARollbackDiscards(replicaAckNone) + ")";
    }

    /** HA-1004 while joining: JE's "hard recovery" inside the environment constructor. */
    static String rolledBackWhileRejoining(String jeInfo, boolean replicaAckNone) {
        return "rolled back while rejoining the group: diverged transactions this node committed that the master "
                + "never received were discarded (" + rollbackDetails(jeInfo) + "; "
                + whatARollbackDiscards(replicaAckNone) + ")";
    }

    /**
     * What the discarded transactions can have been: with replica acknowledgements, only commits no client was
     * told succeeded, removals, or a split brain's; with replica ack NONE, accepted messages too.
     */
    static String whatARollbackDiscards(boolean replicaAckNone) {
        if (replicaAckNone) {
            return "with replica ack NONE a publish is accepted before any replica has it, so these can include "
                    + "ACCEPTED MESSAGES, now lost, as well as consumers' removals (a possible redelivery): see "
                    + "docs/ha.md, durability";
        }
        return "commits whose clients were told in doubt, consumers' removals: a possible redelivery; accepted "
                + "messages only if this node ran alone as designated primary while another was designated too: "
                + "see docs/ha.md, split brain";
    }

    /** JE's own account ("must rollback N total commits ... transaction id=..."), on one line. */
    static String rollbackDetails(String info) {
        if (info == null || info.isBlank()) {
            return "JE gave no details";
        }
        String line = info.lines().filter(l -> l.contains("must rollback")).findFirst()
                .orElse(info.replaceAll("\\s+", " "));
        int start = line.indexOf("must rollback");
        String details = start >= 0 ? line.substring(start) : line;
        return details.length() > 400 ? details.substring(0, 400) + "..." : details;
    }

    // ---- HA-1002, HA-1005, HA-1001 reasons ----

    static String designation(boolean designated) {
        return designated
                ? "true: in a two-node group this node may be master without the other node"
                : "false: this node needs the other node of a two-node group to be master";
    }

    static String quorumLost(String reason) {
        return "lost: " + reason + "; this master does not serve clients until a majority acknowledges it again "
                + "(or, in a two-node group, an operator designates it primary)";
    }

    static String quorumRegained() {
        return "regained: a majority acknowledges this master again; serving clients";
    }

    static String noQuorumYet(String reason) {
        return "none yet: " + reason + "; retrying";
    }

    static String noMasterKnown(String nodeName) {
        return "no master known to node " + nodeName
                + ": the group has no quorum reachable from here (waiting for an election)";
    }

    // ---- HA-1006: network restore ----

    static String restoreStarted(List<String> providers) {
        return "started: this node lacks log that the group no longer keeps (a new or long-absent node); copying "
                + "log files from one of " + providers;
    }

    // ---- HA-1007: hand-over ----

    static String handOverConfirmed(long millis) {
        return "a majority acknowledged everything this master committed (" + millis + " ms)";
    }

    static String handOverNotConfirmed(String why) {
        return "not confirmed (" + why + "); if another node serves next, it may deliver again messages whose "
                + "removal had not reached it";
    }
}
