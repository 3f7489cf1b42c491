package org.tandembroker.amqp;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.Attach;
import org.apache.qpid.proton.amqp.transport.Begin;
import org.apache.qpid.proton.amqp.transport.ConnectionError;
import org.apache.qpid.proton.amqp.transport.Detach;
import org.apache.qpid.proton.amqp.transport.Disposition;
import org.apache.qpid.proton.amqp.transport.End;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.Flow;
import org.apache.qpid.proton.amqp.transport.Transfer;
import org.apache.qpid.proton.engine.impl.ProtocolTracer;
import org.apache.qpid.proton.framing.TransportFrame;

/**
 * Looks at every frame the client sends after Proton decoded it and before Proton acts on it, and refuses the
 * ones whose handling would cost far more than the frame: Proton settles a disposition by walking every delivery
 * id from {@code first} to {@code last}, so a 30-byte disposition for {@code 0..4294967295} would keep the event
 * loop (and every connection on it) busy for minutes, and one ending at the largest id never ends (Proton's counter
 * wraps round before it passes {@code last}). A refused frame throws {@link Refused}; the connection
 * handler closes the connection with its condition.
 *
 * <p>It also refuses a second attach with the name and role of a link the client already attached on the same
 * session (AMQP 1.0 link names are unique per direction between two containers): Proton identifies a session's
 * links by name, so it would fold the second attach onto the first link (nothing is answered and the client waits
 * for ever, while the first link's handle mapping is overwritten). Refusing only the second link would need a
 * second link of that name on our side, which Proton cannot represent, so the connection is closed with
 * {@code amqp:invalid-field} naming the link. A duplicate on another session of the connection reaches
 * {@link AmqpConnection}, which refuses just that attach.
 *
 * <p>Sessions: session frames on a channel the client did not begin, and a second begin on a channel, are refused
 * ({@link #checkSessionOfChannel}).
 *
 * <p>Thread: the connection's event loop (Proton calls it from {@code Transport.process()}), which owns
 * {@link #attachedNames} and {@link #begunChannels}.
 */
final class IncomingFrameGuard implements ProtocolTracer {
    /**
     * The widest delivery-id range one disposition may cover. A client settles deliveries it holds, and none holds
     * this many unsettled on one session; walking this many ids costs about a millisecond.
     */
    static final long MAX_DISPOSITION_SPAN = 65_536;

    /** A frame the broker will not process; the connection is closed with {@link #condition()}. */
    static final class Refused extends RuntimeException {
        private final transient ErrorCondition condition;

        Refused(ErrorCondition condition) {
            super(condition.getDescription(), null, false, false);
            this.condition = condition;
        }

        ErrorCondition condition() {
            return condition;
        }
    }

    /** Per incoming channel, the client's attached links: "role name" by the client's handle. */
    private final Map<Integer, Map<UnsignedInteger, String>> attachedNames = new HashMap<>();

    /** The client's incoming channels with a session it began and has not ended. */
    private final Set<Integer> begunChannels = new HashSet<>();

    @Override
    public void receivedFrame(TransportFrame frame) {
        checkSessionOfChannel(frame);
        if (frame.getBody() instanceof Attach attach) {
            Map<UnsignedInteger, String> ofSession = attachedNames.computeIfAbsent(frame.getChannel(), c -> new HashMap<>());
            String key = attach.getRole() + " " + attach.getName();
            if (attach.getHandle() != null && !ofSession.containsKey(attach.getHandle()) && ofSession.containsValue(key)) {
                throw new Refused(ErrorConditions.condition(AmqpError.INVALID_FIELD, "a link named '" + attach.getName()
                        + "' with role " + attach.getRole().toString().toLowerCase(Locale.ROOT)
                        + " is already attached on this session; link names are unique per direction per connection"));
            }
            if (attach.getHandle() != null) {
                ofSession.put(attach.getHandle(), key);
            }
        } else if (frame.getBody() instanceof Detach detach) {
            Map<UnsignedInteger, String> ofSession = attachedNames.get(frame.getChannel());
            if (ofSession != null) {
                ofSession.remove(detach.getHandle());
            }
        } else if (frame.getBody() instanceof End) {
            attachedNames.remove(frame.getChannel());
        }
        if (frame.getBody() instanceof Disposition disposition) {
            UnsignedInteger first = disposition.getFirst();
            UnsignedInteger last = disposition.getLast() == null ? first : disposition.getLast();
            long span = last.longValue() - first.longValue() + 1;
            if (span > MAX_DISPOSITION_SPAN) {
                throw new Refused(ErrorConditions.condition(AmqpError.INVALID_FIELD, "a disposition for delivery ids "
                        + first + ".." + last + " covers more than " + MAX_DISPOSITION_SPAN + " ids"));
            }
            if (last.equals(UnsignedInteger.MAX_VALUE)) {
                // Proton counts up to last inclusive with a wrapping counter: it would never stop
                throw new Refused(ErrorConditions.condition(AmqpError.INVALID_FIELD,
                        "a disposition ending at delivery id 4294967295 is not supported"));
            }
        }
    }

    /**
     * A begin on a channel that already carries a session, a begin answering a session the broker never began, or
     * session work on a channel without a session: Proton mis-counts its sessions on some of these (an
     * IllegalStateException while writing the end, found by the 100,000-input fuzz run), so they are refused before
     * Proton acts, with {@code amqp:connection:framing-error} naming the channel.
     */
    private void checkSessionOfChannel(TransportFrame frame) {
        Object body = frame.getBody();
        int channel = frame.getChannel();
        if (body instanceof Begin begin) {
            if (begin.getRemoteChannel() != null) {
                throw new Refused(ErrorConditions.condition(ConnectionError.FRAMING_ERROR, "a begin on channel "
                        + channel + " answers remote-channel " + begin.getRemoteChannel()
                        + ", but the broker begins no sessions"));
            }
            if (!begunChannels.add(channel)) {
                throw new Refused(ErrorConditions.condition(ConnectionError.FRAMING_ERROR,
                        "a session is already begun on channel " + channel));
            }
        } else if (body instanceof Attach || body instanceof Flow || body instanceof Transfer
                || body instanceof Disposition || body instanceof Detach || body instanceof End) {
            boolean begun = body instanceof End ? begunChannels.remove(channel) : begunChannels.contains(channel);
            if (!begun) {
                throw new Refused(ErrorConditions.condition(ConnectionError.FRAMING_ERROR,
                        body.getClass().getSimpleName().toLowerCase(Locale.ROOT) + " on channel " + channel
                        + ", where no session is begun"));
            }
        }
    }

    @Override
    public void sentFrame(TransportFrame frame) {
        // nothing to check on the way out
    }
}
