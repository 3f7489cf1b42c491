package org.tandembroker.core.security;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a grant of the permissions file lets a user do on the addresses it names. JMX access is separate: it follows
 * the users file's {@code role=} (docs/security.md, "Authorization").
 */
public enum Permission {
    /** Attach a publishing link to the address, or publish to it through the anonymous relay. */
    SEND,
    /** Attach a consuming link to the address (a queue, or an exchange through a private queue). */
    CONSUME,
    /** Browse without consuming; reserved: Tandem refuses browsing links (distribution-mode copy) today. */
    BROWSE,
    /** Create a queue that does not exist (the virtual host's auto-create). */
    CREATE,
    /** Delete a queue; reserved: AMQP clients cannot delete queues today (temporary queues go with their link). */
    DELETE,
    /** Manage the address; reserved for management over AMQP (JMX uses the users file's roles). */
    MANAGE;

    /** The names allowed in the permissions file. */
    public static final String ALLOWED = Arrays.stream(values()).map(Permission::fileName)
            .collect(Collectors.joining(", ")) + ", all";

    /** The name in the permissions file and in messages, e.g. {@code send}. */
    public String fileName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code send}, ... or {@code all} (every permission). */
    static Optional<Set<Permission>> parse(String name) {
        if (name.equals("all")) {
            return Optional.of(EnumSet.allOf(Permission.class));
        }
        for (Permission p : values()) {
            if (p.fileName().equals(name)) {
                return Optional.of(EnumSet.of(p));
            }
        }
        return Optional.empty();
    }
}
