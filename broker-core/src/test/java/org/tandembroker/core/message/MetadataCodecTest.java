package org.tandembroker.core.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetadataCodecTest {

    @Test
    void metadataStoredBeforeMessagePropertiesIsStillRead() throws Exception {
        // Version 1, as every store written before message properties holds it.
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(1);
            out.writeByte(1 | 2 | 4);
            out.writeByte(7);
            out.writeLong(5_000);
            out.writeLong(1_000);
            out.writeInt(321);
            out.writeUTF("orders");
            out.writeUTF("eu.new");
        }

        assertThat(MetadataCodec.decode(bytes.toByteArray()))
                .isEqualTo(new MessageMetadata("orders", "eu.new", true, 7, 5_000, 1_000, 321));
    }

    @Test
    void metadataWithoutPropertiesIsStillWrittenAsVersionOne() {
        byte[] encoded = MetadataCodec.encode(new MessageMetadata(null, "s", false, 4, 0, 1, 2));
        assertThat(encoded[0]).isEqualTo((byte) 1);
    }

    @Test
    void headersAndEveryPropertyTypeRoundTrip() {
        Map<String, Object> application = new LinkedHashMap<>();
        application.put("s", "x".repeat(70_000));
        application.put("b", true);
        application.put("i8", (byte) -3);
        application.put("i16", (short) 300);
        application.put("i32", 70_000);
        application.put("i64", 1L << 40);
        application.put("f", 1.5f);
        application.put("d", -2.25);
        MessageMetadata metadata = new MessageMetadata("q", null, true, 9, 0, 42, 10,
                new MessageProperties("ID:1", "corr", "alice", "group-a", 3L, 1234, application));

        MessageMetadata decoded = MetadataCodec.decode(MetadataCodec.encode(metadata));

        assertThat(decoded).isEqualTo(metadata);
        assertThat(decoded.properties().application()).containsExactlyEntriesOf(application);
    }
}
