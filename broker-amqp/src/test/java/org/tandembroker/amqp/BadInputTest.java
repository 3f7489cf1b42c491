package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import jakarta.jms.Connection;
import jakarta.jms.Session;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.transport.Attach;
import org.apache.qpid.proton.amqp.transport.Begin;
import org.apache.qpid.proton.amqp.transport.Disposition;
import org.apache.qpid.proton.amqp.transport.Role;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BadInputTest {
    private static final byte[] SASL_HEADER = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};
    private static final byte[] AMQP_HEADER = {'A', 'M', 'Q', 'P', 0, 1, 0, 0};

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
    void garbageIsAnsweredWithTheSaslHeaderAndClosedWhileOthersCarryOn() throws Exception {
        try (Connection healthy = broker.connectionFactory().createConnection()) {
            healthy.start();
            Session session = healthy.createSession(false, Session.AUTO_ACKNOWLEDGE);

            try (RawAmqpClient noise = RawAmqpClient.bytesOnly(broker.port())) {
                noise.sendRaw("GET / HTTP/1.1\r\nHost: broker\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                noise.readUntilClosed();
                assertThat(noise.received()).isEqualTo(SASL_HEADER);
            }
            assertThat(broker.logged("CON-1005")).isTrue();

            session.createProducer(session.createQueue("still-fine")).send(session.createTextMessage("ok"));
            try (Connection another = broker.connectionFactory().createConnection()) {
                another.start();
            }
            assertThat(broker.virtualHost.queue("still-fine").enqueuedCount()).isEqualTo(1);
        }
    }

    @Test
    void clientSkippingSaslIsAnsweredWithTheSaslHeaderAndClosed() throws Exception {
        try (RawAmqpClient client = RawAmqpClient.bytesOnly(broker.port())) {
            client.sendRaw(AMQP_HEADER);
            client.readUntilClosed();

            assertThat(client.received()).isEqualTo(SASL_HEADER);
        }
    }

    @Test
    void headerArrivingInPiecesIsAccepted() throws Exception {
        try (RawAmqpClient client = RawAmqpClient.bytesOnly(broker.port())) {
            client.sendRaw(Arrays.copyOfRange(SASL_HEADER, 0, 3));
            client.sendRaw(Arrays.copyOfRange(SASL_HEADER, 3, 8));
            client.exchangeUntil(() -> client.received().length > SASL_HEADER.length);

            assertThat(Arrays.copyOfRange(client.received(), 0, 8)).isEqualTo(SASL_HEADER);
            assertThat(client.endOfStream()).isFalse(); // the mechanisms follow; the broker waits for sasl-init
        }
    }

    @Test
    void garbageInsteadOfASaslFrameClosesTheSocket() throws Exception {
        try (RawAmqpClient client = RawAmqpClient.bytesOnly(broker.port())) {
            client.sendRaw(SASL_HEADER);
            client.sendRaw(new byte[]{0, 0, 0, 12, 2, 7, 0, 0, (byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef});
            client.readUntilClosed();

            assertThat(Arrays.copyOfRange(client.received(), 0, 8)).isEqualTo(SASL_HEADER);
            await().until(() -> broker.logged("CON-1005"));
            await().until(() -> broker.connectionCount() == 0);
        }
    }

    @Test
    void frameLargerThanTheNegotiatedMaximumClosesWithFramingError() throws Exception {
        try (RawAmqpClient client = RawAmqpClient.opening(broker.port(), RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, "test")) {
            client.exchangeUntil(client::remoteOpened);
            int tooBig = RunningFrontEnd.TEST_LIMITS.maxFrameSize() + 1;
            client.sendRaw(new byte[]{(byte) (tooBig >>> 24), (byte) (tooBig >>> 16), (byte) (tooBig >>> 8), (byte) tooBig,
                    2, 0, 0, 0});
            client.exchangeUntil(client::remoteClosed);

            assertThat(client.connection().getRemoteCondition().getCondition().toString())
                    .isEqualTo("amqp:connection:framing-error");
            client.readUntilClosed();
            assertThat(client.endOfStream()).isTrue();
        }
    }

    @Test
    void undecodableFrameClosesWithDecodeError() throws Exception {
        try (RawAmqpClient client = RawAmqpClient.opening(broker.port(), RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, "test")) {
            client.exchangeUntil(client::remoteOpened);
            // a well-sized AMQP frame whose body is a described type with a broken list
            client.sendRaw(new byte[]{0, 0, 0, 13, 2, 0, 0, 0, 0x00, 0x53, 0x11, (byte) 0xc0, 0x7f});
            client.exchangeUntil(client::remoteClosed);

            assertThat(client.connection().getRemoteCondition().getCondition().toString())
                    .isEqualTo("amqp:decode-error");
            assertThat(broker.logged("CON-1005")).isTrue();
        }
    }

    @Test
    void dispositionOverFourBillionDeliveryIdsClosesWithInvalidFieldWithoutStallingOthers() throws Exception {
        refusesDisposition(0, 0xfffffffeL);
    }

    @Test
    void dispositionEndingAtTheLargestDeliveryIdClosesWithInvalidField() throws Exception {
        refusesDisposition(0xffffff00L, 0xffffffffL); // Proton's wrapping counter would never pass the end
    }

    @Test
    void aSecondBeginOnAChannelThatCarriesASessionClosesWithFramingErrorNamingTheChannel() throws Exception {
        // Found by the 100,000-input fuzz run: Proton mis-counted its sessions and threw while writing the end.
        try (RawAmqpClient client = RawAmqpClient.opening(broker.port(), RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, "test")) {
            org.apache.qpid.proton.engine.Session session = client.connection().session();
            session.open();
            client.exchangeUntil(() -> session.getRemoteState() == org.apache.qpid.proton.engine.EndpointState.ACTIVE);
            Begin again = new Begin();
            again.setNextOutgoingId(UnsignedInteger.ZERO);
            again.setIncomingWindow(UnsignedInteger.valueOf(100));
            again.setOutgoingWindow(UnsignedInteger.valueOf(100));
            client.sendRaw(amqpFrame(0, again));
            client.exchangeUntil(client::remoteClosed);

            assertThat(client.connection().getRemoteCondition().getCondition().toString())
                    .isEqualTo("amqp:connection:framing-error");
            assertThat(client.connection().getRemoteCondition().getDescription())
                    .isEqualTo("a session is already begun on channel 0");
        }
        try (Connection another = broker.connectionFactory().createConnection()) {
            another.start();
        }
    }

    @Test
    void anAttachOnAChannelWithoutASessionClosesWithFramingErrorNamingTheChannel() throws Exception {
        try (RawAmqpClient client = RawAmqpClient.opening(broker.port(), RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, "test")) {
            client.exchangeUntil(client::remoteOpened);
            Attach attach = new Attach();
            attach.setName("orphan");
            attach.setHandle(UnsignedInteger.ZERO);
            attach.setRole(Role.RECEIVER);
            client.sendRaw(amqpFrame(5, attach));
            client.exchangeUntil(client::remoteClosed);

            assertThat(client.connection().getRemoteCondition().getCondition().toString())
                    .isEqualTo("amqp:connection:framing-error");
            assertThat(client.connection().getRemoteCondition().getDescription())
                    .isEqualTo("attach on channel 5, where no session is begun");
        }
    }

    @Test
    void valuesNestedDeeperThanTheDecoderCanRecurseCloseWithDecodeError() throws Exception {
        try (RawAmqpClient client = RawAmqpClient.opening(broker.port(), RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, "test")) {
            client.exchangeUntil(client::remoteOpened);
            // 0x00 opens a described type whose descriptor is read as a value: 60,000 of them nest 60,000 deep
            byte[] body = new byte[60_000];
            ByteBuffer frame = ByteBuffer.allocate(8 + body.length);
            frame.putInt(8 + body.length).put((byte) 2).put((byte) 0).putShort((short) 0).put(body);
            client.sendRaw(frame.array());
            client.exchangeUntil(client::remoteClosed);

            assertThat(client.connection().getRemoteCondition().getCondition().toString()).isEqualTo("amqp:decode-error");
        }
        try (Connection another = broker.connectionFactory().createConnection()) {
            another.start();
        }
    }

    private void refusesDisposition(long first, long last) throws Exception {
        try (RawAmqpClient client = RawAmqpClient.opening(broker.port(), RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, "test")) {
            org.apache.qpid.proton.engine.Session session = client.connection().session();
            session.open();
            client.exchangeUntil(() -> session.getRemoteState() == org.apache.qpid.proton.engine.EndpointState.ACTIVE);
            Disposition disposition = new Disposition();
            disposition.setRole(Role.RECEIVER);
            disposition.setFirst(UnsignedInteger.valueOf(first));
            disposition.setLast(UnsignedInteger.valueOf(last));
            disposition.setSettled(true);
            disposition.setState(Accepted.getInstance());
            client.sendRaw(amqpFrame(0, disposition));
            client.exchangeUntil(client::remoteClosed);

            assertThat(client.connection().getRemoteCondition().getCondition().toString()).isEqualTo("amqp:invalid-field");
        }
        try (Connection another = broker.connectionFactory().createConnection()) {
            another.start(); // the event loop was not kept busy
        }
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
}
