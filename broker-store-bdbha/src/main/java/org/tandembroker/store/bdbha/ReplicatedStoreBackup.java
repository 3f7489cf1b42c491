package org.tandembroker.store.bdbha;

import com.sleepycat.je.Environment;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import java.util.Optional;
import org.tandembroker.store.bdb.JeHotBackup;

/**
 * Hot backup of a running {@link ReplicatedMessageStore}: of this node's environment, master or replica (a replica
 * has what it has received).
 */
final class ReplicatedStoreBackup extends JeHotBackup {
    private final ReplicatedMessageStore store;

    ReplicatedStoreBackup(ReplicatedMessageStore store) {
        this.store = store;
    }

    @Override
    protected Optional<? extends Environment> environment() {
        return store.environment();
    }

    @Override
    protected Environment environmentToBackUp() {
        return store.environment().filter(ReplicatedEnvironment::isValid)
                .orElseThrow(() -> refused("node " + store.nodeName() + " has no open environment now ("
                        + store.nodeState() + "); try again once it has rejoined its group", null));
    }

    @Override
    protected String how() {
        String state = store.nodeState();
        return "hot backup (JE DbBackup) of node " + store.nodeName() + " (" + state + ") of group "
                + store.groupName() + (state.equals("MASTER") ? ""
                : "; a replica has what it has received, back up the master for the latest state");
    }
}
