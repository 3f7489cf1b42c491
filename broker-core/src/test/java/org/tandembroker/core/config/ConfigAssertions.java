package org.tandembroker.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Checks the shape every configuration error must have: one line naming what is wrong. */
final class ConfigAssertions {

    private ConfigAssertions() {
    }

    /** Runs {@code loading}, expects a ConfigException with a one-line message containing every part. */
    static String rejectionOf(ThrowingCallable loading, String... parts) {
        Throwable thrown = catchThrowable(loading);
        assertThat(thrown).isInstanceOf(ConfigException.class);
        String message = thrown.getMessage();
        assertThat(message).doesNotContain("\n").doesNotContain("\r");
        assertThat(message).contains(parts);
        return message;
    }
}
