package org.tandembroker.core.security;

import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;

/**
 * What one authenticated client may do: {@link AccessControl}'s current rules applied to its user. A denial is
 * logged (SEC-1001), counted, and thrown as {@code UNAUTHORIZED_ACCESS} naming the address and the permission.
 * Immutable; any thread.
 */
public final class ClientAccess {
    /** Everything allowed (embedded uses and tests without authorization). */
    public static final ClientAccess UNRESTRICTED = new ClientAccess(null, "anyone", "");

    private final AccessControl control;
    private final String user;
    private final String describedConnection;

    ClientAccess(AccessControl control, String user, String describedConnection) {
        this.control = control;
        this.user = user;
        this.describedConnection = describedConnection;
    }

    public String user() {
        return user;
    }

    /** Changes when the rules are reloaded: a cached decision is stale once this differs. */
    public long version() {
        return control == null ? 0 : control.version();
    }

    public boolean allows(Permission permission, String address) {
        return control == null || control.allows(user, permission, address);
    }

    /**
     * @throws BrokerException UNAUTHORIZED_ACCESS when the permission is not granted
     */
    public void require(Permission permission, String address) {
        if (!allows(permission, address)) {
            throw denial(permission, address);
        }
    }

    /** The exception for a denial, logged and counted. */
    public BrokerException denial(Permission permission, String address) {
        String text = "user '" + user + "' lacks permission '" + permission.fileName() + "' on address '" + address
                + "'";
        if (control != null) {
            control.denied(describedConnection, permission, text);
        }
        return new BrokerException(ErrorKind.UNAUTHORIZED_ACCESS, text);
    }
}
