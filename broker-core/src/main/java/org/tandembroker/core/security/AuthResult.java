package org.tandembroker.core.security;

/**
 * The outcome of an authentication: {@code user} when it succeeded, else {@code failureReason}.
 * {@code managementRole} is the authenticated user's role for the operators' interface (NONE on failure).
 */
public record AuthResult(String user, String failureReason, ManagementRole managementRole) {

    public AuthResult(String user, String failureReason) {
        this(user, failureReason, ManagementRole.NONE);
    }

    public static AuthResult success(String user) {
        return new AuthResult(user, null, ManagementRole.NONE);
    }

    public static AuthResult success(String user, ManagementRole managementRole) {
        return new AuthResult(user, null, managementRole);
    }

    public static AuthResult failure(String reason) {
        return new AuthResult(null, reason, ManagementRole.NONE);
    }

    public boolean succeeded() {
        return user != null;
    }
}
