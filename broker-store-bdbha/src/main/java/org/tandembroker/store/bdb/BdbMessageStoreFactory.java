package org.tandembroker.store.bdb;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.MessageStoreFactory;
import org.tandembroker.core.store.StoreContext;

/** Creates standalone JE stores for {@code <store type="bdb">}; settings: {@link BdbStoreSettings}. */
public final class BdbMessageStoreFactory implements MessageStoreFactory {

    @Override
    public String type() {
        return BdbMessageStore.TYPE;
    }

    @Override
    public MessageStore create(StoreSettings settings, StoreContext context) throws ConfigException {
        return new BdbMessageStore(BdbStoreSettings.from(settings, context), context);
    }

    /** A standalone store in {@code directory}: {@code NO_SYNC} with coalescing sync, the shipped default. */
    @Override
    public Optional<MessageStore> rehearsalStore(Path directory, StoreContext context) throws ConfigException {
        StoreSettings settings = new StoreSettings(directory.resolve("rehearsal.xml"), BdbMessageStore.TYPE,
                Map.of(BdbStoreSettings.STORE_PATH, directory.toString(), BdbStoreSettings.DURABILITY, "NO_SYNC",
                        BdbStoreSettings.COALESCING_SYNC, "true"), List.of(), List.of());
        return Optional.of(create(settings, context));
    }
}
