package org.tandembroker.core.frontend;

import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;

/**
 * A protocol's own client for the start-up warm-up ({@code daemon.Rehearsal}): it moves persistent messages
 * through a scratch virtual host the way the broker's clients will, so that the paths they take are compiled before
 * the first of them connects.
 */
public interface RehearsalClient {

    /**
     * Connects {@code pairs} publishers and as many consumers to {@code address} (SASL ANONYMOUS, virtual host
     * {@code virtualHost}), each pair on its own queue, and keeps them sending and consuming while
     * {@code keepGoing} says so; then stops sending, takes what is still queued and closes. Returns once every
     * connection is closed, or throws the first failure (after closing the rest).
     *
     * @return messages consumed (each one confirmed to its publisher first)
     */
    long rehearse(InetSocketAddress address, String virtualHost, int pairs, BooleanSupplier keepGoing)
            throws Exception;
}
