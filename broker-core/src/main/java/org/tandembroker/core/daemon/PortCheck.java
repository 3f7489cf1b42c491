package org.tandembroker.core.daemon;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ListenerConfig;
import org.tandembroker.core.config.ManagementConfig;

/**
 * Finds, before any store opens, a port of the broker file that this process cannot bind (another broker, or any
 * other process, holds it), so that a clash costs no recovery and says which port and which element. A bind test,
 * not a reservation: the listeners bind for real later; a port taken in between still fails there.
 */
final class PortCheck {
    private PortCheck() {
    }

    /** A port the broker file asks for: what it is for, and where. */
    record Port(String what, String host, int port) {
    }

    static List<Port> portsOf(BrokerConfig config) {
        List<Port> ports = new ArrayList<>();
        for (ListenerConfig listener : config.listeners()) {
            ports.add(new Port("AMQP listener '" + listener.name() + "' (<listener port>)", listener.host(),
                    listener.port()));
        }
        ManagementConfig management = config.management();
        if (management.jmx().enabled()) {
            ports.add(new Port("JMX (<management><jmx port>)", management.jmx().host(), management.jmx().port()));
        }
        if (management.metrics().enabled()) {
            ports.add(new Port("metrics and health (<management><metrics port>)", management.metrics().host(),
                    management.metrics().port()));
        }
        return ports;
    }

    /** Throws, naming the port and its element, unless every port of {@code config} can be bound now. */
    static void requireFree(BrokerConfig config) throws StartupFailure {
        for (Port port : portsOf(config)) {
            if (port.port() == 0) {
                continue; // ephemeral: always free
            }
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true); // as the listeners do: a port in TIME_WAIT is free to them
                socket.bind(new InetSocketAddress(port.host(), port.port()));
            } catch (IOException e) {
                throw new StartupFailure("port " + port.port() + " on " + port.host() + " for " + port.what()
                        + " in " + config.sourceFile() + " is not available: " + e.getMessage()
                        + " (another broker or process uses it: stop it, or choose another port)", e);
            }
        }
    }
}
