package org.tandembroker.store.bdbha;

/**
 * How far a replica is behind the master, as the master measures it (JE's feeder statistics).
 *
 * @param nodeName    the replica
 * @param vlsnLag     replication stream entries the replica has not acknowledged yet; -1 when unknown
 * @param delayMillis how old the last transaction the replica acknowledged was when it did; -1 when unknown
 */
public record ReplicaLag(String nodeName, long vlsnLag, long delayMillis) {
}
