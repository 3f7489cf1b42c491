package org.tandembroker.core.store.memory;

import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.MessageStoreFactory;
import org.tandembroker.core.store.StoreContext;

/** {@code <store type="memory"/>}: non-persistent; takes no settings. */
public final class MemoryMessageStoreFactory implements MessageStoreFactory {
    @Override
    public String type() {
        return "memory";
    }

    @Override
    public MessageStore create(StoreSettings settings, StoreContext context) throws ConfigException {
        for (String element : settings.elements().keySet()) {
            throw ConfigException.invalidValue(settings.sourceFile(), "store/" + element, element,
                    "no child elements (the memory store takes no settings)");
        }
        if (!settings.envConfig().isEmpty() || !settings.repConfig().isEmpty()) {
            throw ConfigException.invalidValue(settings.sourceFile(), "store/envConfig", "envConfig/repConfig",
                    "none for a memory store");
        }
        return new MemoryMessageStore();
    }
}
