package org.tandembroker.store.bdb;

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
}
