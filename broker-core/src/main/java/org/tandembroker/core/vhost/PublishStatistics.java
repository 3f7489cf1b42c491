package org.tandembroker.core.vhost;

/**
 * A virtual host's publish counters since it was created.
 *
 * @param messagesIn        messages accepted for routing to at least one queue (each counted once)
 * @param bytesIn           their content bytes
 * @param storeCommits      store commits of non-transactional persistent publishes that succeeded
 * @param storeCommitNanos  the sum of those commits' latencies (from commit to its future completing)
 * @param publishesRefused  publishes refused by {@link ManagedVirtualHost#refusePublishes}
 */
public record PublishStatistics(long messagesIn, long bytesIn, long storeCommits, long storeCommitNanos,
                                long publishesRefused) {
}
