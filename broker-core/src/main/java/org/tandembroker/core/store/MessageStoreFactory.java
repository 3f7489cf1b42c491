package org.tandembroker.core.store;

import java.nio.file.Path;
import java.util.Optional;
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

    /**
     * A store for the start-up warm-up ({@code <warmUp>}, {@code daemon.Rehearsal}): the same storage engine and
     * record layout as this factory's stores, in {@code directory}, with this type's default durability, not yet
     * started; it never joins or touches the node's real stores or group (a replicated type may rehearse with
     * scratch peers of its own in this JVM, so that its replication paths run too). Empty: the warm-up rehearses on
     * the memory store.
     */
    default Optional<MessageStore> rehearsalStore(Path directory, StoreContext context) throws ConfigException {
        return Optional.empty();
    }
}
