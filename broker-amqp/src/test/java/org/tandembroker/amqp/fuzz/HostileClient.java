package org.tandembroker.amqp.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.qpid.proton.amqp.security.SaslCode;
import org.apache.qpid.proton.amqp.security.SaslOutcome;
import org.apache.qpid.proton.amqp.transport.Close;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;

/**
 * Plays one {@link FuzzInput} against the broker over a real socket and judges the broker's answer: it must end
 * the connection by itself (or, when the input stopped half-way, when the client ends its side) within a deadline,
 * everything it sent must decode, and it must end in one of the ways the protocol allows: the SASL header alone
 * (a wrong protocol header), a failed SASL outcome, a close frame carrying an {@code amqp:} error, or a close
 * without error only in answer to a close of the client's.
 *
 * <p>Thread: one client per thread.
 */
final class HostileClient {
    /** How long the broker may stay silent at the end of an input before the client ends its side. */
    private static final int QUIET_MILLIS = 250;
    private static final long DEADLINE_MILLIS = 10_000;

    enum Ending {
        HEADER_REFUSED, SASL_REFUSED, SASL_LAYER_CLOSED, CLOSED_WITH_ERROR, CLOSED_ON_CLIENT_CLOSE,
        CLIENT_ENDED_FIRST, WRONG
    }

    record Verdict(Ending ending, String detail) {
        boolean acceptable() {
            return ending != Ending.WRONG;
        }
    }

    private final DecoderImpl decoder = new DecoderImpl();
    private final int port;

    HostileClient(int port) {
        this.port = port;
        AMQPDefinedTypes.registerAllTypes(decoder, new EncoderImpl(decoder));
    }

    Verdict play(FuzzInput input) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(QUIET_MILLIS);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            boolean brokerClosed = false;
            boolean stopSending = false;
            long deadline = System.currentTimeMillis() + DEADLINE_MILLIS;
            for (FuzzInput.Step step : input.steps()) {
                if (brokerClosed || stopSending) {
                    break;
                }
                if (step.awaitsSaslOutcome()) {
                    while (!brokerClosed && !parse(received.toByteArray(), false).saslOutcomeSeen) {
                        if (System.currentTimeMillis() > deadline) {
                            return new Verdict(Ending.WRONG, "no SASL outcome within " + DEADLINE_MILLIS + " ms");
                        }
                        brokerClosed = read(in, received);
                    }
                } else {
                    try {
                        out.write(step.bytes());
                    } catch (IOException e) {
                        stopSending = true; // the broker closed while the client was still sending: read what it said
                    }
                }
            }
            boolean clientEndedFirst = false;
            long quietSince = System.currentTimeMillis();
            long said = 0; // bytes received apart from heartbeats: a broker sending only heartbeats waits for input
            while (!brokerClosed) {
                Parsed soFar = parse(received.toByteArray(), false);
                if (soFar.ended()) {
                    break;
                }
                if (System.currentTimeMillis() > deadline) {
                    return new Verdict(Ending.WRONG, "the broker did not close within " + DEADLINE_MILLIS + " ms: "
                            + soFar.describe());
                }
                long saidNow = received.size() - soFar.heartbeatBytes;
                if (saidNow > said) {
                    said = saidNow;
                    quietSince = System.currentTimeMillis();
                } else if (!clientEndedFirst && System.currentTimeMillis() - quietSince >= QUIET_MILLIS) {
                    clientEndedFirst = true; // the input stopped where the broker waits for more: end our side
                    socket.shutdownOutput();
                }
                brokerClosed = read(in, received);
            }
            Parsed output = parse(received.toByteArray(), false);
            if (!output.ended()) {
                output = parse(received.toByteArray(), true); // the socket is closed: an incomplete frame is wrong
            }
            Verdict verdict = judge(input.sendsClose() || sendsACloseFrame(input), output, clientEndedFirst);
            return verdict.acceptable() ? verdict
                    : new Verdict(Ending.WRONG, verdict.detail() + " (client port " + socket.getLocalPort() + ")");
        }
    }

    /** Reads what is there; true when the broker closed the socket. */
    private static boolean read(InputStream in, ByteArrayOutputStream received) {
        byte[] buffer = new byte[16 * 1024];
        try {
            int n = in.read(buffer);
            if (n < 0) {
                return true;
            }
            received.write(buffer, 0, n);
            return false;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset by the broker
        }
    }

    /**
     * Whether the input's bytes, read as the broker reads them (up to the first frame that does not decode), hold a
     * close frame: a generated or mutated performative can be one although the input was not built to close.
     */
    private boolean sendsACloseFrame(FuzzInput input) {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        for (FuzzInput.Step step : input.steps()) {
            if (!step.awaitsSaslOutcome()) {
                sent.writeBytes(step.bytes());
            }
        }
        return parse(sent.toByteArray(), false).closeSeen;
    }

    private static Verdict judge(boolean clientClosed, Parsed output, boolean clientEndedFirst) {
        if (output.undecodable != null) {
            return new Verdict(Ending.WRONG, "the broker sent bytes that do not decode: " + output.undecodable);
        }
        if (output.headers == 0) {
            return clientEndedFirst ? new Verdict(Ending.CLIENT_ENDED_FIRST, "nothing sent")
                    : new Verdict(Ending.WRONG, "the broker closed without a word");
        }
        if (output.headers == 1 && output.saslFrames == 0) {
            return new Verdict(Ending.HEADER_REFUSED, "");
        }
        if (output.saslCode != null && output.saslCode != SaslCode.OK) {
            return new Verdict(Ending.SASL_REFUSED, String.valueOf(output.saslCode));
        }
        if (output.saslCode == null) {
            return new Verdict(Ending.SASL_LAYER_CLOSED, "closed in the SASL layer");
        }
        if (output.lastAmqp instanceof Close close) {
            if (close.getError() != null) {
                String condition = String.valueOf(close.getError().getCondition());
                return condition.startsWith("amqp:")
                        ? new Verdict(Ending.CLOSED_WITH_ERROR, condition)
                        : new Verdict(Ending.WRONG, "a close with a non-AMQP condition " + condition);
            }
            return clientClosed ? new Verdict(Ending.CLOSED_ON_CLIENT_CLOSE, "")
                    : new Verdict(Ending.WRONG, "a close without error although the client never closed");
        }
        return clientEndedFirst ? new Verdict(Ending.CLIENT_ENDED_FIRST, "")
                : new Verdict(Ending.WRONG, "the broker dropped an open connection without a close frame; last frame: "
                + output.lastAmqp);
    }

    /** What the broker sent, frame by frame. */
    private static final class Parsed {
        int headers;
        int saslFrames;
        SaslCode saslCode;
        boolean saslOutcomeSeen;
        Object lastAmqp;
        String undecodable;
        /** Whether any AMQP frame parsed was a close. */
        boolean closeSeen;
        /** Bytes of empty frames (heartbeats) among those parsed. */
        long heartbeatBytes;

        /** The broker said its last word: a close frame or a failed SASL outcome (a client closes then). */
        boolean ended() {
            return lastAmqp instanceof Close || saslCode != null && saslCode != SaslCode.OK;
        }

        String describe() {
            return "headers=" + headers + " saslFrames=" + saslFrames + " saslCode=" + saslCode + " last=" + lastAmqp;
        }
    }

    private Parsed parse(byte[] bytes, boolean complete) {
        Parsed parsed = new Parsed();
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            if (buffer.remaining() >= 4 && bytes[buffer.position()] == 'A' && bytes[buffer.position() + 1] == 'M') {
                if (buffer.remaining() < 8) {
                    break;
                }
                byte[] header = new byte[8];
                buffer.get(header);
                if (!Arrays.equals(header, AmqpFrameGenerator.SASL_HEADER) && !Arrays.equals(header, AmqpFrameGenerator.AMQP_HEADER)) {
                    parsed.undecodable = "header " + Arrays.toString(header);
                    return parsed;
                }
                parsed.headers++;
                continue;
            }
            if (buffer.remaining() < 8) {
                break;
            }
            int start = buffer.position();
            int size = buffer.getInt(start);
            int dataOffset = buffer.get(start + 4) & 0xff;
            int type = buffer.get(start + 5) & 0xff;
            if (size < 8 || dataOffset < 2) {
                parsed.undecodable = "frame header size=" + size + " doff=" + dataOffset;
                return parsed;
            }
            if (buffer.remaining() < size) {
                break;
            }
            ByteBuffer body = ByteBuffer.wrap(bytes, start + dataOffset * 4, size - dataOffset * 4).slice();
            buffer.position(start + size);
            if (!body.hasRemaining()) {
                parsed.heartbeatBytes += size;
                continue; // an empty frame: a heartbeat
            }
            Object performative;
            try {
                decoder.setByteBuffer(body);
                performative = decoder.readObject();
            } catch (RuntimeException e) {
                parsed.undecodable = e.toString();
                return parsed;
            }
            if (type == 1) {
                parsed.saslFrames++;
                if (performative instanceof SaslOutcome outcome) {
                    parsed.saslOutcomeSeen = true;
                    parsed.saslCode = outcome.getCode();
                }
            } else {
                parsed.lastAmqp = performative;
                parsed.closeSeen |= performative instanceof Close;
            }
        }
        if (complete && buffer.hasRemaining() && parsed.undecodable == null) {
            parsed.undecodable = buffer.remaining() + " trailing bytes of an incomplete frame";
        }
        return parsed;
    }
}
