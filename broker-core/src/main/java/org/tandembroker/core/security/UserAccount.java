package org.tandembroker.core.security;

import java.util.Objects;

/**
 * One user of the users file.
 *
 * @param name         the SASL user name: 1-255 characters, no whitespace, control characters or ':'
 * @param passwordHash the salted hash of the password
 * @param loopbackOnly whether the user may connect from loopback addresses only (e.g. the default guest)
 */
public record UserAccount(String name, PasswordHash passwordHash, boolean loopbackOnly) {

    public static final String NAME_RULE = "1-255 characters, no whitespace, control characters or ':'";

    public UserAccount {
        Objects.requireNonNull(passwordHash, "passwordHash");
        if (!isValidName(name)) {
            throw new IllegalArgumentException("user name must be " + NAME_RULE);
        }
    }

    public static boolean isValidName(String name) {
        return name != null && !name.isEmpty() && name.length() <= 255
                && name.codePoints().noneMatch(c -> c == ':' || Character.isWhitespace(c)
                || Character.isSpaceChar(c) || Character.isISOControl(c));
    }
}
