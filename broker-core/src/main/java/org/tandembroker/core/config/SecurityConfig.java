package org.tandembroker.core.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The client-security settings of {@code <security>} besides the users file.
 *
 * @param permissionsFile       the permissions file; empty: authorization off (every authenticated user may do
 *                              everything)
 * @param allowPlainWithoutTls  whether SASL PLAIN is offered on plain-TCP connections from other machines
 *                              (it is always offered over TLS and from loopback)
 * @param authFailureDelay      the delay before the outcome of an attempt after one recent failure from the same
 *                              address (0: no delays)
 * @param authFailureDelayMax   the longest such delay (it doubles with each further failure)
 */
public record SecurityConfig(Optional<Path> permissionsFile, boolean allowPlainWithoutTls, Duration authFailureDelay,
                             Duration authFailureDelayMax) {
    public static final Duration DEFAULT_FAILURE_DELAY = Duration.ofMillis(250);
    public static final Duration DEFAULT_FAILURE_DELAY_MAX = Duration.ofSeconds(5);

    /** No permissions file, PLAIN from loopback and over TLS only, the default delays. */
    public static final SecurityConfig DEFAULTS = new SecurityConfig(Optional.empty(), false, DEFAULT_FAILURE_DELAY,
            DEFAULT_FAILURE_DELAY_MAX);
}
