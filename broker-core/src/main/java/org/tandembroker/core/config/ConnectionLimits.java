package org.tandembroker.core.config;

import java.time.Duration;

/**
 * Limits a front end applies to every connection.
 *
 * @param maxFrameSize    largest frame the broker accepts (and offers in open)
 * @param maxMessageSize  largest message the broker accepts; larger transfers are refused
 * @param idleTimeout     the broker's idle timeout (heartbeats are sent at half the peer's)
 * @param maxConnections  connections beyond this are refused
 * @param linkCredit      credit the broker grants each sending client link (the publish window)
 */
public record ConnectionLimits(int maxFrameSize, long maxMessageSize, Duration idleTimeout, int maxConnections,
                               int linkCredit) {
    public static final ConnectionLimits DEFAULTS =
            new ConnectionLimits(256 * 1024, 100L * 1024 * 1024, Duration.ofSeconds(60), 10_000, 500);
}
