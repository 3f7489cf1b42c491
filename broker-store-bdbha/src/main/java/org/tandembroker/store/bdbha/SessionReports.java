package org.tandembroker.store.bdbha;

/**
 * What one master session (its quorum heartbeat and its commits) reports to {@link NodeRoleMachine}, from the
 * session's own threads. The machine drops the reports of a session or environment that is no longer current.
 */
interface SessionReports {
    /** A majority acknowledged a heartbeat (reported for every acknowledged beat). */
    void quorumConfirmed();

    /** A heartbeat found too few replicas (reported for every such beat). */
    void quorumLost(String reason);

    /** JE invalidated the environment: it must be reopened. */
    void restartRequired(String reason);
}
