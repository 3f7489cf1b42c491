package org.tandembroker.core.security;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of what the broker refused, for metrics: authentication failures by {@link AuthFailure}, connections
 * refused by reason (a short tag such as {@code connection_limit}), and permission denials by {@link Permission}.
 * Lock-free; any thread counts, any thread reads.
 */
public final class SecurityStatistics {
    private final Map<AuthFailure, LongAdder> authFailures = new EnumMap<>(AuthFailure.class);
    private final Map<Permission, LongAdder> denials = new EnumMap<>(Permission.class);
    private final Map<String, LongAdder> refusals = new ConcurrentHashMap<>();

    public SecurityStatistics() {
        for (AuthFailure kind : AuthFailure.values()) {
            authFailures.put(kind, new LongAdder());
        }
        for (Permission permission : Permission.values()) {
            denials.put(permission, new LongAdder());
        }
        for (String reason : RefusalReason.ALL) {
            refusals.put(reason, new LongAdder());
        }
    }

    /** The connection-refusal reasons (tags). */
    public static final class RefusalReason {
        public static final String AUTHENTICATION = "authentication";
        public static final String CONNECTION_LIMIT = "connection_limit";
        public static final String UNKNOWN_VIRTUAL_HOST = "unknown_virtual_host";
        public static final String NOT_ACTIVE = "not_active";
        public static final String PROTOCOL = "protocol";
        public static final java.util.List<String> ALL = java.util.List.of(AUTHENTICATION, CONNECTION_LIMIT,
                UNKNOWN_VIRTUAL_HOST, NOT_ACTIVE, PROTOCOL);

        private RefusalReason() {
        }
    }

    public void authenticationFailed(AuthFailure kind) {
        authFailures.get(kind == null ? AuthFailure.OTHER : kind).increment();
    }

    public void connectionRefused(String reason) {
        refusals.computeIfAbsent(reason, r -> new LongAdder()).increment();
    }

    public void denied(Permission permission) {
        denials.get(permission).increment();
    }

    public long authenticationFailures(AuthFailure kind) {
        return authFailures.get(kind).sum();
    }

    public long connectionsRefused(String reason) {
        LongAdder adder = refusals.get(reason);
        return adder == null ? 0 : adder.sum();
    }

    public long denials(Permission permission) {
        return denials.get(permission).sum();
    }
}
