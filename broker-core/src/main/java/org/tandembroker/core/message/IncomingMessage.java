package org.tandembroker.core.message;

/** A message as a front end hands it to the core: metadata the core needs, and the opaque encoded content. */
public record IncomingMessage(MessageMetadata metadata, byte[] content) {
}
