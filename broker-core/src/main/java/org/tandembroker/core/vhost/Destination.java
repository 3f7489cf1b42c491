package org.tandembroker.core.vhost;

import java.util.concurrent.CompletableFuture;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.txn.LocalTransaction;

/** Where a publishing link sends: a queue or an exchange (with or without a fixed routing key). */
public interface Destination {

    String address();

    /**
     * Routes and enqueues a message.
     * <p>Without a transaction the future completes when the message is on its queues and, if persistent and a
     * queue is durable, durable in the store: only then may the client be told it was accepted. With a
     * transaction, it completes when the message is recorded in the transaction (it becomes visible and durable
     * at commit). Fails with RESOURCE_LIMIT_EXCEEDED (queue full, disk full), NOT_ACTIVE, IN_DOUBT, ...
     */
    CompletableFuture<PublishResult> publish(IncomingMessage message, LocalTransaction transaction);
}
