package org.tandembroker.amqp.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One hostile client's script: byte chunks to send, in order, with points where the client waits for the broker's
 * SASL outcome (the broker refuses AMQP frames pipelined before it, so deeper inputs wait as real clients do).
 * {@code sendsClose} says the script holds a close frame of the client's, so a close without error may be a correct
 * answer. Stored in the corpus as {@code TFZ1}, a flags byte, then (kind, length, bytes) steps.
 */
public record FuzzInput(List<Step> steps, boolean sendsClose) {
    private static final int MAGIC = 0x54465a31; // "TFZ1"

    /** A chunk to send ({@code bytes} non-null), or a wait for the SASL outcome ({@code bytes} null). */
    public record Step(byte[] bytes) {
        static final Step AWAIT_SASL_OUTCOME = new Step(null);

        boolean awaitsSaslOutcome() {
            return bytes == null;
        }
    }

    public int size() {
        return steps.stream().mapToInt(s -> s.bytes == null ? 0 : s.bytes.length).sum();
    }

    public byte[] toBytes() {
        try {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(buffer);
            out.writeInt(MAGIC);
            out.writeByte(sendsClose ? 1 : 0);
            for (Step step : steps) {
                out.writeByte(step.awaitsSaslOutcome() ? 1 : 0);
                if (!step.awaitsSaslOutcome()) {
                    out.writeInt(step.bytes.length);
                    out.write(step.bytes);
                }
            }
            return buffer.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static FuzzInput fromBytes(byte[] stored) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(stored))) {
            if (in.readInt() != MAGIC) {
                throw new IllegalArgumentException("not a TFZ1 corpus entry");
            }
            boolean sendsClose = in.readByte() == 1;
            List<Step> steps = new ArrayList<>();
            while (in.available() > 0) {
                if (in.readByte() == 1) {
                    steps.add(Step.AWAIT_SASL_OUTCOME);
                } else {
                    byte[] bytes = new byte[in.readInt()];
                    in.readFully(bytes);
                    steps.add(new Step(bytes));
                }
            }
            return new FuzzInput(List.copyOf(steps), sendsClose);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
