package org.tandembroker.amqp.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnknownDescribedType;
import org.apache.qpid.proton.amqp.UnsignedByte;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.UnsignedShort;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.amqp.messaging.Modified;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Released;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.messaging.TerminusDurability;
import org.apache.qpid.proton.amqp.security.SaslInit;
import org.apache.qpid.proton.amqp.security.SaslResponse;
import org.apache.qpid.proton.amqp.transaction.Coordinator;
import org.apache.qpid.proton.amqp.transaction.Declare;
import org.apache.qpid.proton.amqp.transaction.Discharge;
import org.apache.qpid.proton.amqp.transaction.TransactionalState;
import org.apache.qpid.proton.amqp.transport.Attach;
import org.apache.qpid.proton.amqp.transport.Begin;
import org.apache.qpid.proton.amqp.transport.Close;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.amqp.transport.Detach;
import org.apache.qpid.proton.amqp.transport.Disposition;
import org.apache.qpid.proton.amqp.transport.End;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.Flow;
import org.apache.qpid.proton.amqp.transport.Open;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.amqp.transport.Role;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.amqp.transport.Transfer;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;

/**
 * A structure-aware generator of hostile AMQP 1.0 conversations, built from Proton-encoded frames: mostly a valid
 * SASL PLAIN handshake and open, then a sequence of performatives that keeps a rough model of what the client has
 * opened (channels, handles, delivery ids), so that many frames are plausible and reach deep into the broker's
 * state, mixed with frames out of order (transfer on an unattached link, disposition for unknown ids, end before
 * begin), wrong types and lengths, huge counts and handles, multi-frame transfers that never end or change their
 * delivery mid-way, SASL abuse, and noise or TLS records on the plain port. Every choice comes from one
 * {@link Random}, so an input is reproducible from its seed.
 *
 * <p>Thread: one generator per thread (Proton's encoder is not thread-safe).
 */
public final class AmqpFrameGenerator {
    static final byte[] SASL_HEADER = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};
    static final byte[] AMQP_HEADER = {'A', 'M', 'Q', 'P', 0, 1, 0, 0};
    private static final int AMQP_FRAME = 0;
    private static final int SASL_FRAME = 1;
    /** A bounded pool: every address may auto-create a queue, and the run must not grow the heap by design. */
    private static final String[] ADDRESSES = {"fuzz-a", "fuzz-b", "fuzz-c", "amq.topic/fuzz.x", "amq.direct/k",
            "amq.fanout", "", "no/such/exchange/q", "\u00e9\u00e8\u4e2d", "x".repeat(300), "$control"};
    private static final String[] LINK_NAMES = {"l0", "l1", "l2", "", "link-\u2603", "n".repeat(500)};

    private final String user;
    private final String password;
    private final String virtualHost;
    private final EncoderImpl encoder;
    private final DecoderImpl rawDecoder = new DecoderImpl(); // no types registered: decodes performatives as lists
    private final ByteBuffer scratch = ByteBuffer.allocate(4 * 1024 * 1024);
    private Random random;

    // the client's rough model of its own conversation
    private final List<Integer> openChannels = new ArrayList<>();
    private final Map<Integer, List<Integer>> handles = new HashMap<>();
    private long nextDeliveryId;
    private boolean closeSent;

    public AmqpFrameGenerator(String user, String password, String virtualHost) {
        this.user = user;
        this.password = password;
        this.virtualHost = virtualHost;
        DecoderImpl decoder = new DecoderImpl();
        encoder = new EncoderImpl(decoder);
        AMQPDefinedTypes.registerAllTypes(decoder, encoder);
        new EncoderImpl(rawDecoder); // the raw decoder needs an encoder to be usable, and no registered types
    }

    /** The input number {@code index} of the run seeded with {@code seed}. */
    public FuzzInput generate(long seed, long index) {
        random = new Random(seed * 1_000_003L + index);
        openChannels.clear();
        handles.clear();
        nextDeliveryId = 0;
        closeSent = false;
        int kind = random.nextInt(100);
        if (kind < 4) {
            return noise();
        } else if (kind < 8) {
            return tlsOnPlainPort();
        } else if (kind < 22) {
            return saslAbuse();
        }
        return amqpConversation();
    }

    // ---- kinds of input

    private FuzzInput noise() {
        byte[] bytes = randomBytes(random.nextInt(2000));
        if (random.nextBoolean() && bytes.length >= 8) {
            System.arraycopy(SASL_HEADER, 0, bytes, 0, 1 + random.nextInt(7)); // a header that goes wrong late
        }
        return new FuzzInput(chunked(bytes), false);
    }

    private FuzzInput tlsOnPlainPort() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0x16); // handshake record
        out.write(3);
        out.write(random.nextInt(5));
        byte[] body = randomBytes(random.nextInt(600));
        int declared = random.nextBoolean() ? body.length : random.nextInt(0x10000);
        out.write(declared >>> 8);
        out.write(declared);
        out.writeBytes(body);
        return new FuzzInput(chunked(out.toByteArray()), false);
    }

    private FuzzInput saslAbuse() {
        List<FuzzInput.Step> steps = new ArrayList<>();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(SASL_HEADER);
        int frames = 1 + random.nextInt(4);
        for (int i = 0; i < frames; i++) {
            switch (random.nextInt(9)) {
                case 0 -> out.writeBytes(saslFrame(init(randomString(random.nextInt(40)), random.nextInt(300))));
                case 1 -> out.writeBytes(saslFrame(plainInit(randomString(8), randomString(8))));
                case 2 -> out.writeBytes(saslFrame(init("PLAIN", 1000 + random.nextInt(200_000)))); // huge response
                case 3 -> { // a response nobody asked for
                    SaslResponse response = new SaslResponse();
                    response.setResponse(new Binary(randomBytes(random.nextInt(100))));
                    out.writeBytes(saslFrame(response));
                }
                case 4 -> out.writeBytes(saslFrame(mutatedFields(plainInit(user, password))));
                case 5 -> out.writeBytes(frame(SASL_FRAME, 0, encode(randomDescribed(0x40 + random.nextInt(6))), 2));
                case 6 -> out.writeBytes(frame(AMQP_FRAME, 0, encode(open()), 2)); // AMQP in the SASL layer
                case 7 -> out.writeBytes(malformedFrame(SASL_FRAME, encode(plainInit(user, password))));
                default -> { // a valid init, then the AMQP header pipelined before the outcome
                    out.writeBytes(saslFrame(plainInit(user, password)));
                    out.writeBytes(AMQP_HEADER);
                }
            }
        }
        steps.addAll(chunked(out.toByteArray()));
        return new FuzzInput(steps, false);
    }

    private FuzzInput amqpConversation() {
        List<FuzzInput.Step> steps = new ArrayList<>();
        ByteArrayOutputStream sasl = new ByteArrayOutputStream();
        sasl.writeBytes(SASL_HEADER);
        sasl.writeBytes(saslFrame(plainInit(user, password)));
        steps.addAll(chunked(sasl.toByteArray()));
        steps.add(FuzzInput.Step.AWAIT_SASL_OUTCOME);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(random.nextInt(30) == 0 ? mutate(AMQP_HEADER.clone()) : AMQP_HEADER);
        if (random.nextInt(12) != 0) {
            out.writeBytes(amqpFrame(0, random.nextInt(15) == 0 ? mutatedFields(open()) : open()));
        }
        int frames = 1 + random.nextInt(random.nextInt(10) == 0 ? 300 : 25);
        for (int i = 0; i < frames; i++) {
            out.writeBytes(nextFrame());
        }
        if (random.nextInt(10) != 0) {
            out.writeBytes(amqpFrame(0, new Close()));
        }
        steps.addAll(chunked(out.toByteArray()));
        return new FuzzInput(steps, closeSent);
    }

    // ---- the frames of a conversation

    private byte[] nextFrame() {
        int pick = random.nextInt(100);
        if (pick < 4) {
            return malformedFrame(AMQP_FRAME, encode(randomPerformative()));
        } else if (pick < 8) {
            return amqpFrame(anyChannel(), mutatedFields(randomPerformative()));
        } else if (pick < 10) {
            return frame(AMQP_FRAME, anyChannel(), encode(randomDescribed(0x10 + random.nextInt(9))), 2);
        } else if (pick < 12) {
            return frame(AMQP_FRAME, anyChannel(), new byte[0], 2); // an empty frame (heartbeat) on any channel
        } else if (pick < 16) {
            return multiFrameTransfer();
        } else if (pick < 20) {
            return coordinatorWork();
        }
        return amqpFrame(anyChannel(), randomPerformative());
    }

    private Object randomPerformative() {
        return switch (random.nextInt(20)) {
            case 0 -> open();
            case 1, 2, 3 -> begin();
            case 4, 5, 6, 7 -> attach();
            case 8, 9, 10 -> flow();
            case 11, 12, 13 -> transfer(message(), false);
            case 14, 15 -> disposition();
            case 16 -> detach();
            case 17 -> end();
            case 18 -> close();
            default -> random.nextBoolean() ? begin() : attach();
        };
    }

    private Open open() {
        Open open = new Open();
        open.setContainerId(random.nextInt(20) == 0 ? "" : "fuzz-" + random.nextInt(1000));
        open.setHostname(random.nextInt(10) == 0 ? randomString(random.nextInt(30)) : virtualHost);
        if (random.nextBoolean()) {
            open.setMaxFrameSize(hugeOr(512 + random.nextInt(100_000)));
        }
        if (random.nextBoolean()) {
            open.setChannelMax(UnsignedShort.valueOf((short) random.nextInt(0x10000)));
        }
        if (random.nextInt(4) == 0) {
            open.setIdleTimeOut(UnsignedInteger.valueOf(random.nextInt(3) == 0 ? random.nextInt(50) : 60_000));
        }
        if (random.nextInt(5) == 0) {
            open.setOfferedCapabilities(symbols());
            open.setDesiredCapabilities(symbols());
        }
        if (random.nextInt(5) == 0) {
            open.setProperties(java.util.Collections.singletonMap(Symbol.valueOf(randomString(5)), randomValue(2)));
        }
        return open;
    }

    private Begin begin() {
        Begin begin = new Begin();
        if (random.nextInt(6) == 0) {
            begin.setRemoteChannel(UnsignedShort.valueOf((short) random.nextInt(0x10000)));
        }
        begin.setNextOutgoingId(uint(random.nextInt(4) == 0 ? random.nextLong() & 0xffffffffL : 0));
        begin.setIncomingWindow(hugeOr(random.nextInt(5000)));
        begin.setOutgoingWindow(hugeOr(random.nextInt(5000)));
        if (random.nextBoolean()) {
            begin.setHandleMax(hugeOr(random.nextInt(100)));
        }
        return begin;
    }

    private Attach attach() {
        Attach attach = new Attach();
        attach.setName(LINK_NAMES[random.nextInt(LINK_NAMES.length)] + random.nextInt(3));
        attach.setHandle(handle());
        boolean publishing = random.nextBoolean(); // the client's role: sender publishes into the broker
        attach.setRole(publishing ? Role.SENDER : Role.RECEIVER);
        attach.setSndSettleMode(SenderSettleMode.values()[random.nextInt(3)]);
        attach.setRcvSettleMode(ReceiverSettleMode.values()[random.nextInt(2)]);
        if (random.nextInt(10) != 0) {
            Source source = new Source();
            source.setAddress(address());
            source.setDynamic(random.nextInt(8) == 0);
            source.setDurable(TerminusDurability.values()[random.nextInt(3)]);
            if (random.nextInt(12) == 0) {
                source.setFilter(Map.of(Symbol.valueOf("jms-selector"), "a = 1"));
            }
            attach.setSource(source);
        }
        int targetKind = random.nextInt(10);
        if (targetKind == 0) {
            attach.setTarget(new Coordinator());
        } else if (targetKind != 1) {
            Target target = new Target();
            target.setAddress(address());
            target.setDynamic(random.nextInt(10) == 0);
            attach.setTarget(target);
        }
        if (random.nextBoolean()) {
            attach.setInitialDeliveryCount(hugeOr(random.nextInt(100)));
        }
        if (random.nextInt(5) == 0) {
            attach.setMaxMessageSize(UnsignedLong.valueOf(random.nextInt(5) == 0 ? Long.MAX_VALUE : random.nextInt(100_000)));
        }
        if (random.nextInt(10) == 0) {
            attach.setUnsettled(Map.of(new Binary(randomBytes(4)), new Accepted()));
        }
        return attach;
    }

    private Flow flow() {
        Flow flow = new Flow();
        flow.setNextIncomingId(random.nextInt(5) == 0 ? null : uint(random.nextInt(100)));
        flow.setIncomingWindow(hugeOr(random.nextInt(5000)));
        flow.setNextOutgoingId(uint(random.nextInt(100)));
        flow.setOutgoingWindow(hugeOr(random.nextInt(5000)));
        if (random.nextInt(5) != 0) {
            flow.setHandle(handle());
            flow.setDeliveryCount(hugeOr(random.nextInt(100)));
            flow.setLinkCredit(hugeOr(random.nextInt(random.nextInt(8) == 0 ? 100_000 : 50)));
            flow.setAvailable(random.nextBoolean() ? null : hugeOr(random.nextInt(10)));
            flow.setDrain(random.nextInt(4) == 0);
        }
        flow.setEcho(random.nextInt(5) == 0);
        return flow;
    }

    /** A transfer performative and the message bytes that follow it in its frame. */
    private record WithPayload(Transfer transfer, byte[] payload) {
    }

    private WithPayload transfer(byte[] payload, boolean more) {
        Transfer transfer = new Transfer();
        transfer.setHandle(handle());
        if (random.nextInt(8) != 0) {
            transfer.setDeliveryId(random.nextInt(10) == 0 ? hugeOr(random.nextInt(1000)) : uint(nextDeliveryId++));
            transfer.setDeliveryTag(new Binary(randomBytes(random.nextInt(10) == 0 ? 33 + random.nextInt(300) : 8)));
        }
        if (random.nextInt(10) == 0) {
            transfer.setMessageFormat(hugeOr(random.nextInt(5)));
        }
        transfer.setSettled(random.nextInt(3) == 0);
        transfer.setMore(more);
        if (random.nextInt(10) == 0) {
            transfer.setState(deliveryState());
        }
        if (random.nextInt(20) == 0) {
            transfer.setAborted(true);
        }
        if (random.nextInt(20) == 0) {
            transfer.setResume(true);
        }
        return new WithPayload(transfer, payload);
    }

    /** A message split over several transfer frames; sometimes never finished, aborted, or changing delivery. */
    private byte[] multiFrameTransfer() {
        int channel = anyChannel();
        byte[] payload = message();
        int pieces = 2 + random.nextInt(random.nextInt(6) == 0 ? 500 : 8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int handleValue = handleOnChannel(channel);
        long deliveryId = nextDeliveryId++;
        int offset = 0;
        for (int i = 0; i < pieces; i++) {
            boolean last = i == pieces - 1;
            int length = last ? payload.length - offset : Math.min(payload.length - offset, random.nextInt(64));
            byte[] piece = java.util.Arrays.copyOfRange(payload, offset, offset + length);
            offset += length;
            Transfer transfer = new Transfer();
            transfer.setHandle(UnsignedInteger.valueOf(random.nextInt(30) == 0 ? random.nextInt(4) : handleValue));
            if (i == 0 || random.nextInt(15) == 0) {
                transfer.setDeliveryId(uint(random.nextInt(15) == 0 ? deliveryId + 1 : deliveryId));
                transfer.setDeliveryTag(new Binary(new byte[]{(byte) deliveryId}));
            }
            transfer.setMore(!last || random.nextInt(6) == 0);
            if (random.nextInt(40) == 0) {
                transfer.setAborted(true);
            }
            if (random.nextInt(40) == 0) {
                transfer.setSettled(true);
            }
            out.writeBytes(amqpFrame(channel, new WithPayload(transfer, piece)));
        }
        return out.toByteArray();
    }

    /** Attach to the coordinator, then declares and discharges (with real and invented txn-ids). */
    private byte[] coordinatorWork() {
        int channel = anyChannel();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Attach attach = new Attach();
        attach.setName("txn" + random.nextInt(3));
        attach.setHandle(UnsignedInteger.valueOf(handleOnChannel(channel)));
        attach.setRole(Role.SENDER);
        attach.setSource(new Source());
        attach.setTarget(new Coordinator());
        if (random.nextInt(5) != 0) {
            out.writeBytes(amqpFrame(channel, attach));
        }
        int count = 1 + random.nextInt(4);
        for (int i = 0; i < count; i++) {
            Object body;
            if (random.nextBoolean()) {
                body = new Declare();
            } else {
                Discharge discharge = new Discharge();
                discharge.setTxnId(new Binary(random.nextBoolean() ? new byte[]{0, 0, 0, (byte) random.nextInt(4)}
                        : randomBytes(random.nextInt(40))));
                discharge.setFail(random.nextBoolean());
                body = discharge;
            }
            byte[] payload = encode(new AmqpValue(random.nextInt(10) == 0 ? randomValue(2) : body));
            WithPayload transfer = transfer(payload, false);
            transfer.transfer().setHandle(attach.getHandle());
            out.writeBytes(amqpFrame(channel, transfer));
        }
        return out.toByteArray();
    }

    private Disposition disposition() {
        Disposition disposition = new Disposition();
        disposition.setRole(random.nextBoolean() ? Role.RECEIVER : Role.SENDER);
        long first = random.nextInt(4) == 0 ? random.nextLong() & 0xffffffffL : random.nextInt(20);
        disposition.setFirst(uint(first));
        if (random.nextBoolean()) {
            disposition.setLast(uint(random.nextInt(4) == 0 ? 0xffffffffL : first + random.nextInt(5000)));
        }
        disposition.setSettled(random.nextBoolean());
        if (random.nextInt(6) != 0) {
            disposition.setState(deliveryState());
        }
        disposition.setBatchable(random.nextBoolean());
        return disposition;
    }

    private DeliveryState deliveryState() {
        return switch (random.nextInt(6)) {
            case 0 -> Accepted.getInstance();
            case 1 -> {
                Rejected rejected = new Rejected();
                rejected.setError(error());
                yield rejected;
            }
            case 2 -> Released.getInstance();
            case 3 -> {
                Modified modified = new Modified();
                modified.setDeliveryFailed(random.nextBoolean());
                modified.setUndeliverableHere(random.nextBoolean());
                yield modified;
            }
            default -> {
                TransactionalState state = new TransactionalState();
                state.setTxnId(new Binary(random.nextBoolean() ? new byte[]{0, 0, 0, (byte) random.nextInt(4)}
                        : randomBytes(random.nextInt(20))));
                state.setOutcome(random.nextBoolean() ? Accepted.getInstance() : null);
                yield state;
            }
        };
    }

    private Detach detach() {
        Detach detach = new Detach();
        detach.setHandle(handle());
        detach.setClosed(random.nextBoolean());
        if (random.nextInt(3) == 0) {
            detach.setError(error());
        }
        return detach;
    }

    private End end() {
        End end = new End();
        if (random.nextInt(3) == 0) {
            end.setError(error());
        }
        return end;
    }

    private Close close() {
        Close close = new Close();
        if (random.nextInt(3) == 0) {
            close.setError(error());
        }
        return close;
    }

    private ErrorCondition error() {
        return new ErrorCondition(Symbol.valueOf(random.nextBoolean() ? "amqp:internal-error" : randomString(20)),
                random.nextBoolean() ? null : randomString(random.nextInt(200)));
    }

    /** A message payload: valid sections, sections with odd values, or garbage bytes. */
    private byte[] message() {
        int kind = random.nextInt(10);
        if (kind == 0) {
            return randomBytes(random.nextInt(300));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (random.nextBoolean()) {
            Header header = new Header();
            header.setDurable(random.nextBoolean());
            if (random.nextInt(5) == 0) {
                header.setTtl(hugeOr(random.nextInt(10)));
            }
            if (random.nextInt(5) == 0) {
                header.setDeliveryCount(hugeOr(random.nextInt(10)));
            }
            if (random.nextInt(5) == 0) {
                header.setPriority(UnsignedByte.valueOf((byte) random.nextInt(256)));
            }
            out.writeBytes(encode(header));
        }
        if (random.nextBoolean()) {
            Properties properties = new Properties();
            properties.setMessageId(random.nextBoolean() ? randomValue(0) : "id-" + random.nextInt());
            properties.setTo(random.nextBoolean() ? address() : null);
            properties.setSubject(random.nextBoolean() ? randomString(10) : null);
            if (random.nextInt(5) == 0) {
                properties.setAbsoluteExpiryTime(new java.util.Date(random.nextLong()));
            }
            out.writeBytes(kind == 1 ? encode(randomDescribed(0x73)) : encode(properties));
        }
        if (random.nextInt(3) == 0) {
            Map<String, Object> values = new HashMap<>();
            values.put(randomString(6), randomValue(1));
            out.writeBytes(encode(new ApplicationProperties(values)));
        }
        out.writeBytes(random.nextBoolean() ? encode(new Data(new Binary(randomBytes(random.nextInt(2000)))))
                : encode(new AmqpValue(randomValue(2))));
        byte[] bytes = out.toByteArray();
        return kind == 2 && bytes.length > 1 ? java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length)) : bytes;
    }

    // ---- frame-level abuse

    /** An encoded performative whose fields were decoded as a plain list and one or more replaced by any value. */
    private UnknownDescribedType mutatedFields(Object performative) {
        byte[] encoded = encode(performative);
        rawDecoder.setByteBuffer(ByteBuffer.wrap(encoded));
        Object decoded = rawDecoder.readObject();
        org.apache.qpid.proton.amqp.DescribedType described = (org.apache.qpid.proton.amqp.DescribedType) decoded;
        List<Object> fields = new ArrayList<>((List<?>) described.getDescribed());
        int changes = 1 + random.nextInt(3);
        for (int i = 0; i < changes; i++) {
            int choice = random.nextInt(4);
            if (choice == 0 || fields.isEmpty()) {
                fields.add(randomValue(1)); // too many fields
            } else if (choice == 1) {
                fields.remove(fields.size() - 1); // a required field missing
            } else {
                fields.set(random.nextInt(fields.size()), randomValue(1)); // a field of the wrong type
            }
        }
        return new UnknownDescribedType(described.getDescriptor(), fields);
    }

    private UnknownDescribedType randomDescribed(long code) {
        List<Object> fields = new ArrayList<>();
        int n = random.nextInt(14);
        for (int i = 0; i < n; i++) {
            fields.add(randomValue(1));
        }
        Object descriptor = random.nextInt(6) == 0 ? Symbol.valueOf(randomString(10)) : UnsignedLong.valueOf(code);
        return new UnknownDescribedType(descriptor, random.nextInt(8) == 0 ? randomValue(1) : fields);
    }

    /** A frame with a wrong size, data offset or type, a truncated body, or flipped bytes. */
    private byte[] malformedFrame(int type, byte[] body) {
        return switch (random.nextInt(7)) {
            case 0 -> {
                byte[] frame = frame(type, anyChannel(), body, 2);
                int size = random.nextInt(3) == 0 ? random.nextInt(8) : random.nextInt();
                ByteBuffer.wrap(frame).putInt(0, size);
                yield frame;
            }
            case 1 -> frame(type, anyChannel(), body, random.nextInt(3) == 0 ? random.nextInt(2) : 2 + random.nextInt(254));
            case 2 -> frame(2 + random.nextInt(254), anyChannel(), body, 2);
            case 3 -> frame(type, anyChannel(), body.length > 1 ? java.util.Arrays.copyOf(body, random.nextInt(body.length)) : body, 2);
            case 4 -> frame(type, anyChannel(), mutate(body.clone()), 2);
            case 5 -> frame(type, anyChannel(), randomBytes(random.nextInt(100)), 2);
            default -> {
                byte[] frame = frame(type, anyChannel(), body, 2);
                yield java.util.Arrays.copyOf(frame, 1 + random.nextInt(frame.length)); // cut, the rest never comes
            }
        };
    }

    private byte[] mutate(byte[] bytes) {
        int flips = 1 + random.nextInt(4);
        for (int i = 0; i < flips && bytes.length > 0; i++) {
            bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
        }
        return bytes;
    }

    // ---- encoding

    private byte[] amqpFrame(int channel, Object performative) {
        if (performative instanceof Close || performative instanceof UnknownDescribedType described
                && UnsignedLong.valueOf(0x18).equals(described.getDescriptor())) {
            closeSent = true;
        }
        if (performative instanceof WithPayload transfer) {
            return frame(AMQP_FRAME, channel, concat(encode(transfer.transfer()), transfer.payload()), 2);
        }
        return frame(AMQP_FRAME, channel, encode(performative), 2);
    }

    private byte[] saslFrame(Object performative) {
        return frame(SASL_FRAME, 0, encode(performative), 2);
    }

    static byte[] frame(int type, int channel, byte[] body, int dataOffset) {
        int extended = Math.max(0, dataOffset * 4 - 8);
        ByteBuffer frame = ByteBuffer.allocate(8 + extended + body.length);
        frame.putInt(8 + extended + body.length);
        frame.put((byte) dataOffset);
        frame.put((byte) type);
        frame.putShort((short) channel);
        frame.put(new byte[extended]);
        frame.put(body);
        return frame.array();
    }

    private byte[] encode(Object value) {
        scratch.clear();
        encoder.setByteBuffer(scratch);
        if (value instanceof UnknownDescribedType described) {
            encoder.writeDescribedType(described);
        } else if (value instanceof WithPayload transfer) {
            encoder.writeObject(transfer.transfer()); // the payload is not part of the performative
        } else {
            encoder.writeObject(value);
        }
        byte[] bytes = new byte[scratch.position()];
        scratch.flip();
        scratch.get(bytes);
        return bytes;
    }

    private SaslInit init(String mechanism, int responseLength) {
        SaslInit init = new SaslInit();
        init.setMechanism(Symbol.valueOf(mechanism));
        init.setInitialResponse(new Binary(randomBytes(responseLength)));
        return init;
    }

    private SaslInit plainInit(String name, String secret) {
        SaslInit init = new SaslInit();
        init.setMechanism(Symbol.valueOf("PLAIN"));
        init.setInitialResponse(new Binary(("\0" + name + "\0" + secret).getBytes(StandardCharsets.UTF_8)));
        init.setHostname(virtualHost);
        return init;
    }

    // ---- values

    private int anyChannel() {
        if (openChannels.isEmpty() || random.nextInt(8) == 0) {
            int channel = random.nextInt(10) == 0 ? random.nextInt(0x10000) : random.nextInt(3);
            openChannels.add(channel);
            return channel;
        }
        return openChannels.get(random.nextInt(openChannels.size()));
    }

    private int handleOnChannel(int channel) {
        List<Integer> known = handles.computeIfAbsent(channel, c -> new ArrayList<>());
        if (known.isEmpty() || random.nextInt(4) == 0) {
            known.add(random.nextInt(10) == 0 ? random.nextInt(Integer.MAX_VALUE) : known.size());
        }
        return known.get(random.nextInt(known.size()));
    }

    private UnsignedInteger handle() {
        int roll = random.nextInt(20);
        if (roll == 0) {
            return UnsignedInteger.MAX_VALUE;
        } else if (roll == 1) {
            return UnsignedInteger.valueOf(random.nextLong() & 0xffffffffL);
        }
        return UnsignedInteger.valueOf(random.nextInt(4));
    }

    private UnsignedInteger hugeOr(int value) {
        int roll = random.nextInt(12);
        if (roll == 0) {
            return UnsignedInteger.MAX_VALUE;
        } else if (roll == 1) {
            return UnsignedInteger.valueOf(0x80000000L);
        } else if (roll == 2) {
            return UnsignedInteger.ZERO;
        }
        return UnsignedInteger.valueOf(value);
    }

    private static UnsignedInteger uint(long value) {
        return UnsignedInteger.valueOf(value & 0xffffffffL);
    }

    private String address() {
        return random.nextInt(15) == 0 ? null : ADDRESSES[random.nextInt(ADDRESSES.length)];
    }

    private Symbol[] symbols() {
        Symbol[] symbols = new Symbol[random.nextInt(4)];
        for (int i = 0; i < symbols.length; i++) {
            symbols[i] = Symbol.valueOf(random.nextBoolean() ? "ANONYMOUS-RELAY" : randomString(8));
        }
        return symbols;
    }

    private Object randomValue(int depth) {
        int kinds = depth > 0 ? 22 : 19;
        return switch (random.nextInt(kinds)) {
            case 0 -> null;
            case 1 -> random.nextBoolean();
            case 2 -> UnsignedByte.valueOf((byte) random.nextInt());
            case 3 -> UnsignedShort.valueOf((short) random.nextInt());
            case 4 -> UnsignedInteger.valueOf(random.nextLong() & 0xffffffffL);
            case 5 -> UnsignedLong.valueOf(random.nextLong() & Long.MAX_VALUE);
            case 6 -> (byte) random.nextInt();
            case 7 -> (short) random.nextInt();
            case 8 -> random.nextInt();
            case 9 -> random.nextLong();
            case 10 -> random.nextFloat();
            case 11 -> random.nextDouble();
            case 12 -> (char) random.nextInt(0xd800);
            case 13 -> new java.util.Date(random.nextLong());
            case 14 -> new UUID(random.nextLong(), random.nextLong());
            case 15 -> new Binary(randomBytes(random.nextInt(random.nextInt(10) == 0 ? 5000 : 20)));
            case 16 -> randomString(random.nextInt(30));
            case 17 -> Symbol.valueOf(randomString(random.nextInt(20)));
            case 18 -> UnsignedInteger.MAX_VALUE;
            case 19 -> {
                List<Object> list = new ArrayList<>();
                int n = random.nextInt(6);
                for (int i = 0; i < n; i++) {
                    list.add(randomValue(depth - 1));
                }
                yield list;
            }
            case 20 -> {
                Map<Object, Object> map = new HashMap<>();
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    map.put(randomString(4), randomValue(depth - 1));
                }
                yield map;
            }
            default -> new UnknownDescribedType(UnsignedLong.valueOf(random.nextInt(0x80)), randomValue(depth - 1));
        };
    }

    private String randomString(int length) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(random.nextInt(10) == 0 ? (char) (0x80 + random.nextInt(0x2000)) : (char) (32 + random.nextInt(95)));
        }
        return text.toString();
    }

    private byte[] randomBytes(int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] joined = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, joined, a.length, b.length);
        return joined;
    }

    /** Splits bytes into chunks of random sizes, as a network might deliver them. */
    private List<FuzzInput.Step> chunked(byte[] bytes) {
        List<FuzzInput.Step> steps = new ArrayList<>();
        int mode = bytes.length > 4096 ? 2 + random.nextInt(2) : random.nextInt(4);
        int offset = 0;
        while (offset < bytes.length) {
            int size = switch (mode) {
                case 0 -> bytes.length;
                case 1 -> 1 + random.nextInt(7);
                default -> 1 + random.nextInt(4096);
            };
            int end = Math.min(bytes.length, offset + size);
            steps.add(new FuzzInput.Step(java.util.Arrays.copyOfRange(bytes, offset, end)));
            offset = end;
        }
        return steps;
    }
}
