package org.tandembroker.core.vhost;

/** How many queues a published message reached (0: no binding matched; the message was dropped). */
public record PublishResult(int queuesReached) {
}
