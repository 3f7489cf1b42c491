package org.tandembroker.core.vhost;

import java.util.Optional;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.store.MessageStore;

/**
 * The virtual host's open store, or none (after a passivation or stop). Opened and closed on the host's
 * life-cycle thread; read by any thread, hence volatile.
 */
final class CurrentStore {
    private final String hostName;
    private volatile MessageStore store;

    CurrentStore(String hostName) {
        this.hostName = hostName;
    }

    Optional<MessageStore> get() {
        return Optional.ofNullable(store);
    }

    boolean is(MessageStore candidate) {
        return store == candidate;
    }

    /** The open store; NOT_ACTIVE when there is none. */
    MessageStore require() {
        MessageStore current = store;
        if (current == null) {
            throw new BrokerException(ErrorKind.NOT_ACTIVE, "virtual host '" + hostName + "' has no open store");
        }
        return current;
    }

    void open(MessageStore opened) {
        store = opened;
    }

    /** Forgets the store and returns it (null if none) for the caller to close. */
    MessageStore take() {
        MessageStore current = store;
        store = null;
        return current;
    }
}
