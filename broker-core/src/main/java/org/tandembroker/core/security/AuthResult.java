package org.tandembroker.core.security;

/**
 * The outcome of an authentication: {@code user} when it succeeded, else {@code failureReason} (for the log) and
 * {@code failureKind} (for metrics). {@code managementRole} is the authenticated user's role for the operators'
 * interface (NONE on failure).
 */
public record AuthResult(String user, String failureReason, ManagementRole managementRole, AuthFailure failureKind) {

    public AuthResult(String user, String failureReason) {
        this(user, failureReason, ManagementRole.NONE, user == null ? AuthFailure.OTHER : null);
    }

    public static AuthResult success(String user) {
        return new AuthResult(user, null, ManagementRole.NONE, null);
    }

    public static AuthResult success(String user, ManagementRole managementRole) {
        return new AuthResult(user, null, managementRole, null);
    }

    public static AuthResult failure(String reason) {
        return failure(AuthFailure.OTHER, reason);
    }

    public static AuthResult failure(AuthFailure kind, String reason) {
        return new AuthResult(null, reason, ManagementRole.NONE, kind);
    }

    public boolean succeeded() {
        return user != null;
    }
}
