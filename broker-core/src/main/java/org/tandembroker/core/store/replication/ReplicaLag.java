package org.tandembroker.core.store.replication;

/**
 * How far a replica is behind the master, as the master measures it.
 *
 * @param nodeName    the replica
 * @param vlsnLag     replication stream entries (VLSNs) the replica has not acknowledged yet; -1 when unknown
 * @param delayMillis how old the last transaction the replica acknowledged was when it did; -1 when unknown
 */
public record ReplicaLag(String nodeName, long vlsnLag, long delayMillis) {
}
