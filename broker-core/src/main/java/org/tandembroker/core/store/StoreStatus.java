package org.tandembroker.core.store;

/**
 * A snapshot of a store's state for logs and management.
 *
 * @param role        e.g. "STANDALONE", "MASTER", "REPLICA", "UNKNOWN", "DETACHED", "CLOSED"
 * @param writable    whether commits can currently succeed (false when the disk is full, or not master)
 * @param description one line for operators
 */
public record StoreStatus(String role, boolean writable, String description) {
}
