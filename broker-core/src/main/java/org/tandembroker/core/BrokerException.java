package org.tandembroker.core;

/**
 * A failure the broker reports to a client or an operator. The {@link ErrorKind} tells a protocol front end
 * which protocol error to send; the message is the human-readable description.
 */
public class BrokerException extends RuntimeException {
    private final ErrorKind kind;

    public BrokerException(ErrorKind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public BrokerException(ErrorKind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public ErrorKind kind() {
        return kind;
    }

    /** Unwraps CompletionException layers and maps anything unexpected to INTERNAL_ERROR. */
    public static BrokerException from(Throwable t) {
        Throwable cause = t;
        while ((cause instanceof java.util.concurrent.CompletionException
                || cause instanceof java.util.concurrent.ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof BrokerException be) {
            return be;
        }
        return new BrokerException(ErrorKind.INTERNAL_ERROR, String.valueOf(cause.getMessage()), cause);
    }
}
