package org.tandembroker.core.config;

import java.nio.file.Path;

/**
 * An invalid configuration. The message is one line for the operator, naming the file, the element, the bad
 * value and what would have been allowed.
 */
public class ConfigException extends Exception {

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The standard form: {@code file: <element> has invalid value 'v'; allowed: ...}. */
    public static ConfigException invalidValue(Path file, String element, String value, String allowed) {
        return new ConfigException(file + ": <" + element + "> has invalid value '" + value + "'; allowed: "
                + allowed);
    }

    public static ConfigException missing(Path file, String element, String allowed) {
        return new ConfigException(file + ": <" + element + "> is required but missing; allowed: " + allowed);
    }
}
