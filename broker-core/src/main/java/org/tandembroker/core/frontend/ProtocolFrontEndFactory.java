package org.tandembroker.core.frontend;

/** Creates a protocol front end; found with {@link java.util.ServiceLoader}. */
public interface ProtocolFrontEndFactory {

    /** e.g. "amqp-1.0". */
    String protocol();

    ProtocolFrontEnd create(FrontEndContext context) throws Exception;
}
