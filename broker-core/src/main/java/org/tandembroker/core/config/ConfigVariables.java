package org.tandembroker.core.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the placeholders of configuration files take their values from, and how they are replaced.
 *
 * <p>Any attribute value or element text of {@code broker.xml} and of a virtual host file may contain
 * {@code ${NAME}} (the variable must be set) or {@code ${NAME:-default}} (the default when the variable is unset
 * or empty, as in a shell). {@code NAME} is looked up first as a Java system property ({@code -DNAME=...}), then as
 * an environment variable, so that a command line can override the environment. {@code $${} stands for a literal
 * {@code ${}. A replaced value is validated exactly like a value written in the file; an error names the variable
 * ({@code <store/nodeName (from ${TANDEM_NODE_NAME})> has invalid value ...}). This is how one container image
 * serves every node of a group: its files read {@code TANDEM_*} variables (docs/configuration.md lists them).
 *
 * <p>Immutable; any thread.
 */
public final class ConfigVariables {
    /** System properties, then the process environment. */
    public static final ConfigVariables SYSTEM = new ConfigVariables(
            name -> Optional.ofNullable(System.getProperty(name)).or(() -> Optional.ofNullable(System.getenv(name))));
    /** No variable is set: every placeholder takes its default (used by tests and by {@code tandem create}). */
    public static final ConfigVariables NONE = new ConfigVariables(name -> Optional.empty());

    static final String NAME_RULE = "a variable name: a letter or '_', then letters, digits, '_' or '.'";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}:]*)(:-([^}]*))?}");
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");
    private static final String ESCAPED = "$${";

    private final Function<String, Optional<String>> lookup;

    private ConfigVariables(Function<String, Optional<String>> lookup) {
        this.lookup = lookup;
    }

    /** Variables from a map only (tests; nothing from the system). */
    public static ConfigVariables of(Map<String, String> values) {
        Map<String, String> copy = Map.copyOf(values);
        return new ConfigVariables(name -> Optional.ofNullable(copy.get(name)));
    }

    /** Whether {@code raw} contains a placeholder (not counting escaped ones). */
    static boolean hasPlaceholder(String raw) {
        return raw != null && !variablesIn(raw).isEmpty();
    }

    /** The names of the variables {@code raw} reads, in order, e.g. {@code [TANDEM_NODE_NAME]}. */
    static List<String> variablesIn(String raw) {
        List<String> names = new ArrayList<>();
        Matcher m = PLACEHOLDER.matcher(raw.replace(ESCAPED, "\u0000\u0000"));
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** {@code " (from ${A}, ${B})"} for a value with placeholders, "" otherwise: appended to element paths. */
    static String sourceNote(String raw) {
        List<String> names = raw == null ? List.of() : variablesIn(raw);
        if (names.isEmpty()) {
            return "";
        }
        return " (from " + String.join(", ", names.stream().map(n -> "${" + n + "}").toList()) + ")";
    }

    /**
     * {@code raw} with its placeholders replaced.
     *
     * @param file    for error messages
     * @param element the element path, for error messages ({@code store/nodeName}, {@code listener[amqp]@port})
     * @throws ConfigException if a variable without default is not set, or a placeholder is malformed
     */
    String resolve(Path file, String element, String raw) throws ConfigException {
        if (raw == null || !raw.contains("${")) {
            return raw;
        }
        String protectedRaw = raw.replace(ESCAPED, "\u0000\u0000");
        if (PLACEHOLDER.matcher(protectedRaw).replaceAll("").contains("${")) {
            throw ConfigException.invalidValue(file, element, SecureXml.oneLine(raw),
                    "${NAME} or ${NAME:-default}, closed by '}' (write $${ for a literal ${)");
        }
        StringBuilder out = new StringBuilder();
        Matcher m = PLACEHOLDER.matcher(protectedRaw);
        int last = 0;
        while (m.find()) {
            out.append(protectedRaw, last, m.start());
            String name = m.group(1);
            if (!NAME.matcher(name).matches()) {
                throw ConfigException.invalidValue(file, element, SecureXml.oneLine(raw),
                        "${NAME} or ${NAME:-default} with " + NAME_RULE + " ('" + name + "' is not one)");
            }
            Optional<String> value = lookup.apply(name).filter(v -> !v.isEmpty());
            if (value.isPresent()) {
                out.append(value.get());
            } else if (m.group(2) != null) {
                out.append(m.group(3));
            } else {
                throw new ConfigException(file + ": <" + element + "> reads ${" + name + "}, which is not set "
                        + "(neither a system property nor an environment variable); allowed: set " + name
                        + ", or give a default in the file: ${" + name + ":-value}");
            }
            last = m.end();
        }
        out.append(protectedRaw.substring(last));
        return out.toString().replace("\u0000\u0000", "${");
    }
}
