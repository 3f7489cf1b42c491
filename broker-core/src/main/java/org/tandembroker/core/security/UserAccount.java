package org.tandembroker.core.security;

import java.util.Objects;

/**
 * One user of the users file.
 *
 * @param name           the SASL user name: 1-255 characters, no whitespace, control characters or ':'
 * @param passwordHash   the salted hash of the password
 * @param loopbackOnly   whether the user may connect from loopback addresses only (e.g. the default guest)
 * @param managementRole what the user may do over JMX ({@link ManagementRole#NONE}: nothing)
 */
public record UserAccount(String name, PasswordHash passwordHash, boolean loopbackOnly,
                          ManagementRole managementRole) {

    public static final String NAME_RULE = "1-255 characters, no whitespace, control characters or ':'";

    public UserAccount {
        Objects.requireNonNull(passwordHash, "passwordHash");
        Objects.requireNonNull(managementRole, "managementRole");
        if (!isValidName(name)) {
            throw new IllegalArgumentException("user name must be " + NAME_RULE);
        }
    }

    /** A user without a management role. */
    public UserAccount(String name, PasswordHash passwordHash, boolean loopbackOnly) {
        this(name, passwordHash, loopbackOnly, ManagementRole.NONE);
    }

    public static boolean isValidName(String name) {
        return name != null && !name.isEmpty() && name.length() <= 255
                && name.codePoints().noneMatch(c -> c == ':' || Character.isWhitespace(c)
                || Character.isSpaceChar(c) || Character.isISOControl(c));
    }
}
