package org.tandembroker.store.bdbha.channel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * Where a password is read from: a file (its first line) or an environment variable, never the configuration
 * itself. Holds only the location, so that printing it (a record's {@code toString}, a log line) shows no secret;
 * the password is read again on each use, so that a rotated password file is picked up at the next open.
 *
 * @param file        the file whose first line is the password, or null
 * @param variable    the environment variable holding the password, or null
 * @param environment how environment variables are read ({@link System#getenv(String)} outside tests)
 */
public record SecretSource(Path file, String variable, UnaryOperator<String> environment) {

    /** The password; fails with a message naming the file or variable (never the value). */
    public char[] read() {
        if (file != null) {
            try {
                String text = Files.readString(file, StandardCharsets.UTF_8);
                int end = text.indexOf('\n');
                String line = end < 0 ? text : text.substring(0, end);
                if (line.endsWith("\r")) {
                    line = line.substring(0, line.length() - 1);
                }
                if (line.isEmpty()) {
                    throw new IllegalStateException("the password file " + file + " is empty");
                }
                return line.toCharArray();
            } catch (IOException e) {
                throw new IllegalStateException("cannot read the password file " + file + ": " + e, e);
            }
        }
        String value = environment.apply(variable);
        if (value == null || value.isEmpty()) {
            throw new IllegalStateException("the environment variable " + variable + " is not set or empty");
        }
        return value.toCharArray();
    }

    /** Where the password comes from, for messages. */
    public String describe() {
        return file != null ? "the file " + file : "the environment variable " + variable;
    }

    @Override
    public String toString() {
        return "SecretSource[" + describe() + "]";
    }
}
