package org.tandembroker.core.config;

import java.util.Objects;

/** One {@code <name>}/{@code <value>} pair of an {@code envConfig} or {@code repConfig} list. */
public record NameValue(String name, String value) {
    public NameValue {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
    }
}
