package org.tandembroker.core.store;

import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.StoreSettings;

/**
 * Creates message stores of one type; found with {@link java.util.ServiceLoader}. The virtual host's
 * {@code <store type="...">} element selects the factory whose {@link #type()} matches.
 */
public interface MessageStoreFactory {

    /** The value of the {@code type} attribute this factory serves, e.g. "memory", "bdb", "bdb-ha". */
    String type();

    /**
     * Validates {@code settings} (every value: an invalid one is a {@link ConfigException} naming file, element,
     * value and allowed values) and creates a store that is not yet started.
     */
    MessageStore create(StoreSettings settings, StoreContext context) throws ConfigException;
}
