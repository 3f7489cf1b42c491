package org.tandembroker.store.bdbha;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * What a node publishes to its group as JE's app state ({@code registerAppStateMonitor}), read by other nodes and
 * tools with DbPing: where its clients connect (a replica redirects clients there) and where its JMX connector is
 * (an operator's tool asking one node finds the others). Encoded as lines: the client address first (what nodes
 * of earlier versions published alone), then {@code jmx=HOST:PORT}.
 *
 * @param clientAddress     host:port of its AMQP listener as clients use it, when known
 * @param managementAddress host:port of its JMX connector, when it has one
 */
record NodeAddresses(Optional<String> clientAddress, Optional<String> managementAddress) {
    private static final String JMX = "jmx=";

    static NodeAddresses of(String clientAddress, String managementAddress) {
        return new NodeAddresses(Optional.ofNullable(clientAddress).filter(a -> !a.isBlank()),
                Optional.ofNullable(managementAddress).filter(a -> !a.isBlank()));
    }

    /** The app state; empty when there is nothing to publish (JE refuses an empty app state). */
    Optional<byte[]> encode() {
        if (clientAddress.isEmpty() && managementAddress.isEmpty()) {
            return Optional.empty();
        }
        String text = clientAddress.orElse("") + managementAddress.map(a -> "\n" + JMX + a).orElse("");
        return Optional.of(text.getBytes(StandardCharsets.UTF_8));
    }

    static NodeAddresses decode(byte[] appState) {
        if (appState == null || appState.length == 0) {
            return new NodeAddresses(Optional.empty(), Optional.empty());
        }
        String[] lines = new String(appState, StandardCharsets.UTF_8).split("\n");
        Optional<String> client = Optional.of(lines[0].trim()).filter(a -> !a.isEmpty());
        Optional<String> management = Optional.empty();
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].startsWith(JMX)) {
                management = Optional.of(lines[i].substring(JMX.length()).trim()).filter(a -> !a.isEmpty());
            }
        }
        return new NodeAddresses(client, management);
    }
}
