package org.tandembroker.core.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code <store type="...">} element of a virtual host file, kept generic so that the core knows nothing of
 * any store's options: each store factory validates its own elements.
 *
 * @param sourceFile the virtual host file (for error messages)
 * @param type       the store type, e.g. "memory", "bdb", "bdb-ha"
 * @param elements   the text of each simple child element, by element name (e.g. "storePath", "durability")
 * @param envConfig  the {@code <envConfig>} name/value pairs, in file order
 * @param repConfig  the {@code <repConfig>} name/value pairs, in file order
 * @param sources    for elements whose text read variables, where it came from, e.g.
 *                   {@code nodeName -> (from ${TANDEM_NODE_NAME})} (see {@link ConfigVariables})
 */
public record StoreSettings(Path sourceFile, String type, Map<String, String> elements,
                            List<NameValue> envConfig, List<NameValue> repConfig, Map<String, String> sources) {

    public StoreSettings {
        elements = Map.copyOf(elements);
        envConfig = List.copyOf(envConfig);
        repConfig = List.copyOf(repConfig);
        sources = Map.copyOf(sources);
    }

    /** Settings written in the file, without variables. */
    public StoreSettings(Path sourceFile, String type, Map<String, String> elements, List<NameValue> envConfig,
                         List<NameValue> repConfig) {
        this(sourceFile, type, elements, envConfig, repConfig, Map.of());
    }

    /**
     * {@code error} with each {@code <store/X>} it names followed by where X's value came from, when it read a
     * variable: store factories validate elements without knowing of variables, so the broker calls this on their
     * errors.
     */
    public ConfigException namingSources(ConfigException error) {
        String message = error.getMessage();
        String named = message;
        for (Map.Entry<String, String> source : sources.entrySet()) {
            named = named.replace("<store/" + source.getKey() + ">",
                    "<store/" + source.getKey() + " " + source.getValue() + ">");
        }
        return named.equals(message) ? error : new ConfigException(named, error);
    }

    public Optional<String> text(String element) {
        return Optional.ofNullable(elements.get(element)).map(String::trim);
    }

    public String text(String element, String defaultValue) {
        return text(element).orElse(defaultValue);
    }

    public String required(String element, String allowed) throws ConfigException {
        Optional<String> value = text(element);
        if (value.isEmpty() || value.get().isEmpty()) {
            throw ConfigException.missing(sourceFile, "store/" + element, allowed);
        }
        return value.get();
    }

    public boolean bool(String element, boolean defaultValue) throws ConfigException {
        Optional<String> value = text(element);
        if (value.isEmpty()) {
            return defaultValue;
        }
        return switch (value.get().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ConfigException.invalidValue(sourceFile, "store/" + element, value.get(), "true, false");
        };
    }

    /** A size such as {@code 512MiB}, {@code 10 GB}, {@code 1048576}. */
    public long size(String element, long defaultBytes) throws ConfigException {
        Optional<String> value = text(element);
        if (value.isEmpty()) {
            return defaultBytes;
        }
        try {
            return Units.parseBytes(value.get());
        } catch (IllegalArgumentException e) {
            throw ConfigException.invalidValue(sourceFile, "store/" + element, value.get(), Units.BYTES_FORMAT);
        }
    }

    /** Path for a store directory, resolved against {@code base} when relative. */
    public Path path(String element, Path base, String defaultRelative) {
        return base.resolve(text(element, defaultRelative));
    }
}
