package org.tandembroker.core.security;

/** The outcome of an authentication: {@code user} when it succeeded, else {@code failureReason}. */
public record AuthResult(String user, String failureReason) {
    public static AuthResult success(String user) {
        return new AuthResult(user, null);
    }

    public static AuthResult failure(String reason) {
        return new AuthResult(null, reason);
    }

    public boolean succeeded() {
        return user != null;
    }
}
