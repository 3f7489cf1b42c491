package org.tandembroker.core.store.replication;

import java.util.Optional;

/**
 * What another node of the group said about itself when asked over the network: its own view, not this node's.
 *
 * @param nodeName                 the node
 * @param state                    its state as it says
 * @param masterName               the master it knows, or empty
 * @param storeVersion             the version of its store engine
 * @param logVersion               its log format version
 * @param transactionEndVlsn       the replication stream position (VLSN) of its last transaction end
 * @param masterTransactionEndVlsn the master's last transaction end position as the node knows it
 * @param activeFeeders            replicas it feeds (on a master)
 * @param systemLoad               its system load average
 * @param managementAddress        host:port of its broker's JMX connector, when it publishes one
 */
public record PingAnswer(String nodeName, MemberState state, Optional<String> masterName, String storeVersion,
                         int logVersion, long transactionEndVlsn, long masterTransactionEndVlsn, int activeFeeders,
                         double systemLoad, Optional<String> managementAddress) {

    /** An answer without a management address. */
    public PingAnswer(String nodeName, MemberState state, Optional<String> masterName, String storeVersion,
                      int logVersion, long transactionEndVlsn, long masterTransactionEndVlsn, int activeFeeders,
                      double systemLoad) {
        this(nodeName, state, masterName, storeVersion, logVersion, transactionEndVlsn, masterTransactionEndVlsn,
                activeFeeders, systemLoad, Optional.empty());
    }
}
