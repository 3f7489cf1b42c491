package org.tandembroker.core.store;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A durable configuration object: an exchange, a queue or a binding.
 *
 * @param id         stable identity
 * @param type       {@link #EXCHANGE}, {@link #QUEUE} or {@link #BINDING}
 * @param attributes the object's settings as strings (the virtual host owns their meaning)
 */
public record ConfigRecord(UUID id, String type, Map<String, String> attributes) {
    public static final String EXCHANGE = "exchange";
    public static final String QUEUE = "queue";
    public static final String BINDING = "binding";

    public ConfigRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(type, "type");
        attributes = Map.copyOf(attributes);
    }
}
