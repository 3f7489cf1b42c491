package org.tandembroker.amqp;

import java.util.Map;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.transaction.TransactionErrors;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.ConnectionError;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.LinkError;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;

/**
 * The one place where the core's {@link ErrorKind}s become AMQP error conditions.
 *
 * <p>Two choices worth knowing: {@code NOT_ACTIVE} maps to {@code amqp:connection:forced} because the whole node
 * stopped serving the virtual host, so links escalate it to a connection close (failover clients reconnect and
 * resend what was not settled); {@code IN_DOUBT} maps to {@code amqp:internal-error} with a description starting
 * "outcome in doubt" because the store may have committed: {@code amqp:transaction:rollback} would be a lie and
 * {@code amqp:transaction:unknown-id} means something else (an id the broker never issued).
 */
final class ErrorConditions {
    static final Symbol NOT_IMPLEMENTED = AmqpError.NOT_IMPLEMENTED;
    static final Symbol UNKNOWN_TRANSACTION = TransactionErrors.UNKNOWN_ID;
    private static final Symbol NETWORK_HOST = Symbol.valueOf("network-host");
    private static final Symbol PORT = Symbol.valueOf("port");
    private static final Symbol HOSTNAME = Symbol.valueOf("hostname");

    private ErrorConditions() {
    }

    static Symbol symbolFor(ErrorKind kind) {
        return switch (kind) {
            case NOT_FOUND -> AmqpError.NOT_FOUND;
            case RESOURCE_LIMIT_EXCEEDED -> AmqpError.RESOURCE_LIMIT_EXCEEDED;
            case NOT_ALLOWED -> AmqpError.NOT_ALLOWED;
            case NOT_ACTIVE -> ConnectionError.CONNECTION_FORCED;
            case UNAUTHORIZED_ACCESS -> AmqpError.UNAUTHORIZED_ACCESS;
            case INVALID_FIELD -> AmqpError.INVALID_FIELD;
            case ILLEGAL_STATE -> AmqpError.ILLEGAL_STATE;
            case TRANSACTION_ROLLBACK -> TransactionErrors.TRANSACTION_ROLLBACK;
            case IN_DOUBT, INTERNAL_ERROR -> AmqpError.INTERNAL_ERROR;
        };
    }

    /** The condition for a failure reported by the core (unwrapping CompletionException). */
    static ErrorCondition of(Throwable failure) {
        BrokerException e = BrokerException.from(failure);
        return of(e.kind(), e.getMessage());
    }

    static ErrorCondition of(ErrorKind kind, String description) {
        String text = kind == ErrorKind.IN_DOUBT ? "outcome in doubt: " + description : description;
        return new ErrorCondition(symbolFor(kind), text);
    }

    /** Whether a failure means this node no longer serves the virtual host (close the connection, not a link). */
    static boolean isNodeInactive(Throwable failure) {
        return BrokerException.from(failure).kind() == ErrorKind.NOT_ACTIVE;
    }

    static ErrorCondition condition(Symbol symbol, String description) {
        return new ErrorCondition(symbol, description);
    }

    static ErrorCondition messageSizeExceeded(long size, long limit) {
        return new ErrorCondition(LinkError.MESSAGE_SIZE_EXCEEDED,
                "message of at least " + size + " bytes exceeds the limit of " + limit + " bytes");
    }

    static ErrorCondition detachForced(String reason) {
        return new ErrorCondition(LinkError.DETACH_FORCED, reason);
    }

    static ErrorCondition connectionForced(String reason) {
        return new ErrorCondition(ConnectionError.CONNECTION_FORCED, reason);
    }

    /**
     * {@code amqp:connection:redirect} with the info map Qpid JMS (and other failover clients) read:
     * network-host, port and the virtual host to ask for there.
     */
    static ErrorCondition redirect(String reason, String hostAndPort, String virtualHost) {
        int colon = hostAndPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostAndPort.length() - 1) {
            throw new IllegalArgumentException("redirect address is not host:port: " + hostAndPort);
        }
        String host = hostAndPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = Integer.parseInt(hostAndPort.substring(colon + 1));
        ErrorCondition condition = new ErrorCondition(ConnectionError.REDIRECT, reason);
        condition.setInfo(Map.of(NETWORK_HOST, host, PORT, port, HOSTNAME, virtualHost));
        return condition;
    }
}
