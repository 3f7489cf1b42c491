package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Date;
import java.util.Map;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedByte;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.codec.DecodeException;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MessageProperties;

class MessageSectionsTest {
    private static final long NOW = 1_700_000_000_000L;

    private final MessageSections sections = new MessageSections();
    private final MessageMetadataDecoder metadataDecoder = new MessageMetadataDecoder(sections);
    private final RedeliveryHeader redeliveryHeader = new RedeliveryHeader(sections);

    @Test
    void metadataComesFromHeaderPropertiesAndApplicationProperties() {
        Header header = new Header();
        header.setDurable(true);
        header.setPriority(UnsignedByte.valueOf((byte) 8));
        header.setTtl(UnsignedInteger.valueOf(5_000));
        Properties properties = new Properties();
        properties.setTo("orders");
        properties.setSubject("eu.new");
        byte[] content = encode(header, properties, new byte[]{1, 2, 3});

        MessageMetadata metadata = metadataDecoder.decode(content, NOW);

        assertThat(metadata).isEqualTo(new MessageMetadata("orders", "eu.new", true, 8, NOW + 5_000, NOW,
                content.length, new MessageProperties(null, null, null, null, null, 0, Map.of("k", "v"))));
    }

    @Test
    void selectableHeadersTakeTheirJmsForm() {
        Properties properties = new Properties();
        properties.setMessageId(java.util.UUID.fromString("00000000-0000-0000-0000-000000000001"));
        properties.setCorrelationId("req-1");
        properties.setUserId(new Binary("alice".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        properties.setGroupId("g");
        properties.setGroupSequence(UnsignedInteger.valueOf(3));
        properties.setCreationTime(new java.util.Date(NOW - 1));

        MessageProperties selectable =
                metadataDecoder.decode(encode(null, properties, new byte[]{1}), NOW).properties();

        assertThat(selectable).isEqualTo(new MessageProperties("ID:AMQP_UUID:00000000-0000-0000-0000-000000000001",
                "req-1", "alice", "g", 3L, NOW - 1, Map.of("k", "v")));
    }

    @Test
    void messageWithoutHeaderGetsDefaults() {
        MessageMetadata metadata = metadataDecoder.decode(encode(null, null, new byte[]{9}), NOW);

        assertThat(metadata.persistent()).isFalse();
        assertThat(metadata.priority()).isEqualTo(4);
        assertThat(metadata.expiresAtMillis()).isZero();
        assertThat(metadata.to()).isNull();
    }

    @Test
    void earlierAbsoluteExpiryWinsOverTtl() {
        Header header = new Header();
        header.setTtl(UnsignedInteger.valueOf(60_000));
        Properties properties = new Properties();
        properties.setAbsoluteExpiryTime(new Date(NOW + 1_000));

        assertThat(metadataDecoder.decode(encode(header, properties, new byte[0]), NOW).expiresAtMillis())
                .isEqualTo(NOW + 1_000);
    }

    @Test
    void bytesThatAreNotAnAmqpMessageAreRefused() {
        assertThatThrownBy(() -> metadataDecoder.decode("hello".getBytes(), NOW)).isInstanceOf(DecodeException.class);
        assertThatThrownBy(() -> metadataDecoder.decode(new byte[]{0x00, 0x53, 0x70, (byte) 0xc0, 0x7f}, NOW))
                .isInstanceOf(DecodeException.class);
    }

    @Test
    void redeliveryRewritesDeliveryCountAndKeepsEverythingElse() {
        Header header = new Header();
        header.setDurable(true);
        Properties properties = new Properties();
        properties.setTo("q");
        byte[] content = encode(header, properties, new byte[]{4, 5, 6});

        Message redelivered = decode(redeliveryHeader.rewrite(content, 3));

        assertThat(redelivered.getHeader().getDeliveryCount()).isEqualTo(UnsignedInteger.valueOf(3));
        assertThat(redelivered.getHeader().getFirstAcquirer()).isFalse();
        assertThat(redelivered.getHeader().getDurable()).isTrue();
        assertThat(redelivered.getProperties().getTo()).isEqualTo("q");
        assertThat(redelivered.getMessageAnnotations().getValue()).containsEntry(Symbol.valueOf("x-opt-a"), "b");
        assertThat(((Data) redelivered.getBody()).getValue()).isEqualTo(new Binary(new byte[]{4, 5, 6}));
    }

    @Test
    void redeliveryAddsAHeaderWhenThereWasNone() {
        Message redelivered = decode(redeliveryHeader.rewrite(encode(null, null, new byte[]{1}), 1));

        assertThat(redelivered.getHeader().getDeliveryCount()).isEqualTo(UnsignedInteger.ONE);
        assertThat(((Data) redelivered.getBody()).getValue()).isEqualTo(new Binary(new byte[]{1}));
    }

    private static byte[] encode(Header header, Properties properties, byte[] body) {
        Message message = Message.Factory.create();
        if (header != null) {
            message.setHeader(header);
        }
        message.setMessageAnnotations(new MessageAnnotations(Map.of(Symbol.valueOf("x-opt-a"), "b")));
        if (properties != null) {
            message.setProperties(properties);
        }
        message.setApplicationProperties(new ApplicationProperties(Map.of("k", "v")));
        message.setBody(new Data(new Binary(body)));
        ByteBuffer buffer = ByteBuffer.allocate(1024);
        int size = message.encode(buffer.array(), 0, buffer.capacity());
        byte[] bytes = new byte[size];
        buffer.get(bytes);
        return bytes;
    }

    private static Message decode(byte[] bytes) {
        Message message = Message.Factory.create();
        message.decode(bytes, 0, bytes.length);
        return message;
    }
}
