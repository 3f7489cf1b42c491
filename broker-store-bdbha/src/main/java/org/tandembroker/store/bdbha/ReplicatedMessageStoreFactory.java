package org.tandembroker.store.bdbha;

import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.MessageStoreFactory;
import org.tandembroker.core.store.StoreContext;

/** Creates replicated JE stores for {@code <store type="bdb-ha">}; settings: {@link ReplicatedStoreSettings}. */
public final class ReplicatedMessageStoreFactory implements MessageStoreFactory {

    @Override
    public String type() {
        return ReplicatedMessageStore.TYPE;
    }

    @Override
    public MessageStore create(StoreSettings settings, StoreContext context) throws ConfigException {
        return new ReplicatedMessageStore(ReplicatedStoreSettings.from(settings, context), context);
    }
}
