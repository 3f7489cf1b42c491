package org.tandembroker.core.frontend;

import java.util.Optional;

/** Creates a protocol front end; found with {@link java.util.ServiceLoader}. */
public interface ProtocolFrontEndFactory {

    /** e.g. "amqp-1.0". */
    String protocol();

    ProtocolFrontEnd create(FrontEndContext context) throws Exception;

    /** This protocol's client for the start-up warm-up; empty when it has none. */
    default Optional<RehearsalClient> rehearsalClient() {
        return Optional.empty();
    }
}
