package org.tandembroker.perftests;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Session;
import java.util.Random;
import org.apache.qpid.jms.JmsConnectionFactory;

/**
 * Qpid JMS connections to the broker under test, and the benchmark's message format: a persistent
 * {@code BytesMessage} whose body is {@code bodySize} bytes and whose properties name its producer, its sequence
 * number and the {@link System#nanoTime()} at which it was sent (producer and consumer run in this JVM, so the
 * clocks agree).
 */
public final class Clients {
    public static final String PRODUCER = "perfProducer";
    public static final String SEQUENCE = "perfSequence";
    public static final String SENT_AT = "perfSentAtNanos";

    private final JmsConnectionFactory syncSends;
    private final JmsConnectionFactory asyncSends;
    private final byte[] body;

    /**
     * @param prefetch each consumer's link credit ({@code jms.prefetchPolicy.all}); 0 keeps the client's default
     *                 (1000)
     */
    public Clients(String uri, String user, String password, int bodySize, int prefetch) {
        // forceSyncSend: every send waits for the broker's settlement (the default for persistent messages,
        // made explicit so that a client default cannot change what is measured).
        this.syncSends = new JmsConnectionFactory(user, password, withOption(uri, "jms.forceSyncSend=true"));
        this.asyncSends = new JmsConnectionFactory(user, password,
                prefetch > 0 ? withOption(uri, "jms.prefetchPolicy.all=" + prefetch) : uri);
        this.body = new byte[bodySize];
        new Random(42).nextBytes(body);
    }

    /**
     * {@code uri} with {@code option} ({@code NAME=VALUE}) added to its query: after {@code ?} when it has none,
     * else after {@code &}. For {@code failover:(...)} only the part after the nested URIs counts, so that the
     * option goes to the failover URI (where Qpid JMS reads {@code jms.*} options), not to the last nested one.
     */
    static String withOption(String uri, String option) {
        int query = uri.startsWith("failover:") ? uri.indexOf('?', Math.max(0, uri.lastIndexOf(')')))
                : uri.indexOf('?');
        return uri + (query < 0 ? "?" : "&") + option;
    }

    /** A started connection whose producers send synchronously. */
    public Connection syncSendConnection(String clientId) throws JMSException {
        return started(syncSends, clientId);
    }

    /** A started connection for consumers, or for producers that send with a completion listener. */
    public Connection connection(String clientId) throws JMSException {
        return started(asyncSends, clientId);
    }

    private static Connection started(JmsConnectionFactory factory, String clientId) throws JMSException {
        Connection connection = factory.createConnection();
        try {
            connection.setClientID(clientId);
            connection.start();
            return connection;
        } catch (JMSException e) {
            connection.close();
            throw e;
        }
    }

    /** A benchmark message: the body and the three identifying properties. */
    public BytesMessage message(Session session, int producer, long sequence) throws JMSException {
        BytesMessage message = session.createBytesMessage();
        message.writeBytes(body);
        message.setIntProperty(PRODUCER, producer);
        message.setLongProperty(SEQUENCE, sequence);
        message.setLongProperty(SENT_AT, System.nanoTime());
        return message;
    }

    public int bodySize() {
        return body.length;
    }
}
