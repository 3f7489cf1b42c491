package org.tandembroker.systest.cluster;

import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.qpid.jms.JmsConnection;
import org.apache.qpid.jms.JmsConnectionListener;
import org.apache.qpid.jms.message.JmsInboundMessageDispatch;

/**
 * What a client's Qpid JMS connections went through: the broker it is connected to now, every broker it connected
 * to, and how often a connection was interrupted (a failover connection reconnects after each interruption). Lets
 * a scenario assert "the clients moved to node2" or "the clients never noticed" from the client's side. A client
 * that opens a new connection after a failure attaches the same watch to it.
 *
 * <p>Qpid JMS calls the listener on its own threads; every method is synchronized.
 */
public final class ConnectionWatch implements JmsConnectionListener {
    private final List<URI> connectedTo = new ArrayList<>();
    private URI current;
    private int interruptions;
    private Throwable failure;

    /** Also watches {@code connection} (a Qpid JMS one; anything else is left alone); returns this. */
    public ConnectionWatch attach(Connection connection) {
        if (connection instanceof JmsConnection jms) {
            jms.addConnectionListener(this);
            URI uri = jms.getConnectedURI();
            if (uri != null) {
                onConnectionEstablished(uri);
            }
        }
        return this;
    }

    /** The broker the connection is on now; empty while it is interrupted. */
    public synchronized Optional<URI> current() {
        return Optional.ofNullable(current);
    }

    /** Every broker the connection was established or restored on, in order (repeats included). */
    public synchronized List<URI> connectedTo() {
        return List.copyOf(connectedTo);
    }

    /** How many times the connection was interrupted (each time, a failover connection looked for a broker). */
    public synchronized int interruptions() {
        return interruptions;
    }

    /** Whether the connection is on the node whose client address is {@code amqpUri} ({@code amqp://host:port}). */
    public synchronized boolean isOn(String amqpUri) {
        return current != null && sameBroker(current, amqpUri);
    }

    public synchronized Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    @Override
    public synchronized void onConnectionEstablished(URI remoteURI) {
        if (current == null || !current.equals(remoteURI)) {
            connectedTo.add(remoteURI);
        }
        current = remoteURI;
    }

    @Override
    public synchronized void onConnectionFailure(Throwable error) {
        failure = error;
        current = null;
    }

    @Override
    public synchronized void onConnectionInterrupted(URI remoteURI) {
        interruptions++;
        current = null;
    }

    @Override
    public synchronized void onConnectionRestored(URI remoteURI) {
        connectedTo.add(remoteURI);
        current = remoteURI;
    }

    @Override
    public void onInboundMessage(JmsInboundMessageDispatch envelope) {
    }

    @Override
    public void onSessionClosed(Session session, Throwable cause) {
    }

    @Override
    public void onConsumerClosed(MessageConsumer consumer, Throwable cause) {
    }

    @Override
    public void onProducerClosed(MessageProducer producer, Throwable cause) {
    }

    @Override
    public synchronized String toString() {
        return "connected to " + connectedTo + ", " + interruptions + " interruption(s)"
                + (current == null ? ", not connected now" : "");
    }

    private static boolean sameBroker(URI uri, String amqpUri) {
        URI other = URI.create(amqpUri);
        return uri.getPort() == other.getPort() && String.valueOf(uri.getHost()).equals(other.getHost());
    }
}
