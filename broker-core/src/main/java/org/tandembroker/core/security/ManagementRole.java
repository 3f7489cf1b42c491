package org.tandembroker.core.security;

import java.util.Locale;
import java.util.Optional;

/**
 * What a user may do through the operators' interface (JMX). Given in the users file as {@code role=admin} or
 * {@code role=monitor}; a user without a role has no management access.
 */
public enum ManagementRole {
    /** No management access (the default). */
    NONE,
    /** Read attributes only: no attribute writes, no operations. */
    MONITOR,
    /** Read and write attributes, invoke operations. */
    ADMIN;

    /** The values allowed after {@code role=} in the users file and after {@code --role}. */
    public static final String ALLOWED = "admin, monitor";

    /** The name used in the users file: {@code admin} or {@code monitor} (empty for NONE). */
    public String fileName() {
        return this == NONE ? "" : name().toLowerCase(Locale.ROOT);
    }

    /** {@code admin} or {@code monitor}, case-insensitively; empty for anything else. */
    public static Optional<ManagementRole> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "admin" -> Optional.of(ADMIN);
            case "monitor" -> Optional.of(MONITOR);
            default -> Optional.empty();
        };
    }
}
