package org.tandembroker.tools.create;

/**
 * What {@code tandem create --arbiter} writes into an arbiter's {@code run} script.
 *
 * @param groupName      the brokers' group
 * @param nodeName       the arbiter's name in the group
 * @param nodeHostPort   where the arbiter listens
 * @param helperHostPort the brokers' replication addresses
 */
record ArbiterSettings(String groupName, String nodeName, NodeSettings.HostPort nodeHostPort, String helperHostPort) {
}
