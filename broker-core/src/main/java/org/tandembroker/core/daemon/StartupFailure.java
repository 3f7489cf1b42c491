package org.tandembroker.core.daemon;

/**
 * Why a broker could not start, in one line for the operator (a port in use, a work directory another broker
 * holds, a store that cannot open): {@link BrokerMain} prints it and exits with code 1, without a stack trace.
 */
public final class StartupFailure extends Exception {
    private static final long serialVersionUID = 1L;

    public StartupFailure(String message) {
        super(message);
    }

    public StartupFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
