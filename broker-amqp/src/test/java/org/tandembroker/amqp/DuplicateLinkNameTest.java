package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import jakarta.jms.Connection;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.transport.Attach;
import org.apache.qpid.proton.amqp.transport.Role;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DuplicateLinkNameTest {
    private RunningFrontEnd broker;

    @BeforeEach
    void startBroker() throws Exception {
        broker = RunningFrontEnd.start();
    }

    @AfterEach
    void stopBroker() {
        broker.close();
    }

    @Test
    void secondAttachWithTheSameNameOnTheSameSessionClosesTheConnectionWithInvalidFieldWhileOthersCarryOn() throws Exception {
        try (RawAmqpClient client = RawAmqpClient.opening(broker.port(), RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, "test")) {
            Session session = client.connection().session();
            session.open();
            Receiver first = receiver(session, "dup", "queue-a");
            client.exchangeUntil(() -> first.getRemoteState() == EndpointState.ACTIVE);
            // Proton's client API cannot make two links of one name on a session: send the second attach as bytes
            client.sendRaw(amqpFrame(0, attach("dup", 7, "queue-b")));
            client.exchangeUntil(client::remoteClosed);

            assertThat(client.connection().getRemoteCondition().getCondition().toString()).isEqualTo("amqp:invalid-field");
            assertThat(client.connection().getRemoteCondition().getDescription()).contains("'dup'", "already attached");
        }
        try (Connection another = broker.connectionFactory().createConnection()) {
            jakarta.jms.Session session = another.createSession(false, jakarta.jms.Session.AUTO_ACKNOWLEDGE);
            session.createProducer(session.createQueue("queue-a")).send(session.createTextMessage("still served"));
        }
        assertThat(broker.virtualHost.queue("queue-a").enqueuedCount()).isEqualTo(1);
    }

    @Test
    void secondAttachWithTheSameNameOnAnotherSessionIsRefusedWithInvalidFieldAndTheFirstLinkKeepsDelivering() throws Exception {
        try (RawAmqpClient client = RawAmqpClient.opening(broker.port(), RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, "test")) {
            Session session = client.connection().session();
            session.open();
            Receiver first = receiver(session, "dup", "queue-a");
            client.exchangeUntil(() -> first.getRemoteState() == EndpointState.ACTIVE);
            Session other = client.connection().session();
            other.open();
            Receiver second = receiver(other, "dup", "queue-b");
            client.exchangeUntil(() -> second.getRemoteState() == EndpointState.CLOSED);

            assertThat(second.getRemoteCondition().getCondition().toString()).isEqualTo("amqp:invalid-field");
            assertThat(second.getRemoteCondition().getDescription()).contains("'dup'", "already attached");
            try (Connection publisher = broker.connectionFactory().createConnection()) {
                jakarta.jms.Session publishing = publisher.createSession(false, jakarta.jms.Session.AUTO_ACKNOWLEDGE);
                publishing.createProducer(publishing.createQueue("queue-a")).send(publishing.createTextMessage("hello"));
            }
            first.flow(1);
            client.exchangeUntil(() -> first.current() != null && !first.current().isPartial());
            assertThat(first.getRemoteState()).isEqualTo(EndpointState.ACTIVE);
            assertThat(client.connection().getRemoteState()).isEqualTo(EndpointState.ACTIVE);
        }
    }

    private static Attach attach(String name, long handle, String address) {
        Attach attach = new Attach();
        attach.setName(name);
        attach.setHandle(UnsignedInteger.valueOf(handle));
        attach.setRole(Role.RECEIVER);
        Source source = new Source();
        source.setAddress(address);
        attach.setSource(source);
        attach.setTarget(new Target());
        return attach;
    }

    private static byte[] amqpFrame(int channel, Object performative) {
        DecoderImpl decoder = new DecoderImpl();
        EncoderImpl encoder = new EncoderImpl(decoder);
        AMQPDefinedTypes.registerAllTypes(decoder, encoder);
        ByteBuffer body = ByteBuffer.allocate(1024);
        encoder.setByteBuffer(body);
        encoder.writeObject(performative);
        body.flip();
        ByteBuffer frame = ByteBuffer.allocate(8 + body.remaining());
        frame.putInt(8 + body.remaining()).put((byte) 2).put((byte) 0).putShort((short) channel).put(body);
        return frame.array();
    }

    private static Receiver receiver(Session session, String name, String address) {
        Receiver receiver = session.receiver(name);
        Source source = new Source();
        source.setAddress(address);
        receiver.setSource(source);
        receiver.setTarget(new Target());
        receiver.open();
        return receiver;
    }
}
