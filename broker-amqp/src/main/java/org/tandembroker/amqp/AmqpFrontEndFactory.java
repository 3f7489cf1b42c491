package org.tandembroker.amqp;

import java.util.Optional;
import org.tandembroker.amqp.rehearsal.AmqpRehearsalClient;
import org.tandembroker.core.frontend.FrontEndContext;
import org.tandembroker.core.frontend.ProtocolFrontEnd;
import org.tandembroker.core.frontend.ProtocolFrontEndFactory;
import org.tandembroker.core.frontend.RehearsalClient;

/** Registers the AMQP 1.0 front end with the core (found with {@link java.util.ServiceLoader}). */
public final class AmqpFrontEndFactory implements ProtocolFrontEndFactory {
    public static final String PROTOCOL = "amqp-1.0";

    @Override
    public String protocol() {
        return PROTOCOL;
    }

    @Override
    public ProtocolFrontEnd create(FrontEndContext context) {
        return new AmqpServer(context);
    }

    @Override
    public Optional<RehearsalClient> rehearsalClient() {
        return Optional.of(new AmqpRehearsalClient());
    }
}
