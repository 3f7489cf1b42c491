package org.tandembroker.systest;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.daemon.Broker;

/** A broker started in the test JVM from files written by {@link TestBrokerFiles}; restartable on the same work dir. */
public final class EmbeddedBroker implements AutoCloseable {
    private final Path brokerFile;
    private final Path work;
    private Broker broker;

    public EmbeddedBroker(Path directory) throws Exception {
        this(directory, etc -> { });
    }

    /** What a test adds to {@code etc/} after {@link TestBrokerFiles} wrote it, before the broker starts. */
    public interface EtcChange {
        void apply(Path etc) throws Exception;
    }

    public EmbeddedBroker(Path directory, EtcChange change) throws Exception {
        this.brokerFile = TestBrokerFiles.write(directory.resolve("etc"), "");
        change.apply(directory.resolve("etc"));
        this.work = directory.resolve("work");
        start();
    }

    public void start() throws Exception {
        broker = Broker.start(BrokerConfigLoader.load(brokerFile, Map.of()), work);
    }

    public void restart() throws Exception {
        broker.close();
        start();
    }

    public Broker broker() {
        return broker;
    }

    public int port() {
        String address = broker.boundAddresses().get(0);
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1).replaceAll("[^0-9]", ""));
    }

    public String uri() {
        return "amqp://127.0.0.1:" + port();
    }

    public Connection connect() throws JMSException {
        return connect("guest", "guest");
    }

    public Connection connect(String user, String password) throws JMSException {
        Connection c = new JmsConnectionFactory(user, password, uri()).createConnection();
        c.start();
        return c;
    }

    @Override
    public void close() {
        if (broker != null) {
            broker.close();
        }
    }
}
