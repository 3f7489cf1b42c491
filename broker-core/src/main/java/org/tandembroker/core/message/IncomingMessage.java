package org.tandembroker.core.message;

/**
 * A message as a front end hands it to the core: metadata the core needs, and the opaque encoded content.
 *
 * @param publisherConnection an identity of the connection it was published on, for no-local subscribers; null
 *                            when the front end has none
 */
public record IncomingMessage(MessageMetadata metadata, byte[] content, String publisherConnection) {

    public IncomingMessage(MessageMetadata metadata, byte[] content) {
        this(metadata, content, null);
    }
}
