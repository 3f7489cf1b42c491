package org.tandembroker.store.bdb;

import com.sleepycat.je.Environment;
import java.util.Optional;

/** Hot backup of a running standalone {@link BdbMessageStore}. */
final class StandaloneStoreBackup extends JeHotBackup {
    private final BdbMessageStore store;

    StandaloneStoreBackup(BdbMessageStore store) {
        this.store = store;
    }

    @Override
    protected Optional<? extends Environment> environment() {
        return store.environment();
    }

    @Override
    protected Environment environmentToBackUp() {
        return store.environment().orElseThrow(() -> refused("the store is not open ("
                + store.status().description() + ")", null));
    }

    @Override
    protected String how() {
        return "hot backup (JE DbBackup) of the running standalone store";
    }
}
