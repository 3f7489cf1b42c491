package org.tandembroker.core.store;

import java.nio.file.Path;
import org.tandembroker.core.oplog.OperationalLog;

/**
 * What the broker gives a store factory.
 *
 * @param virtualHostName the virtual host the store serves
 * @param workDirectory   the broker's work directory; relative store paths resolve against it
 * @param clientAddress   host:port this node's clients use (advertised by replicated stores), may be null
 * @param operationalLog  where the store writes its operator-facing lines
 * @param managementAddress host:port of this node's JMX connector (published by replicated stores, so that an
 *                        operator's tool asking one node finds the others), may be null
 */
public record StoreContext(String virtualHostName, Path workDirectory, String clientAddress,
                           OperationalLog operationalLog, String managementAddress) {

    /** A context without a management address (no JMX connector). */
    public StoreContext(String virtualHostName, Path workDirectory, String clientAddress,
                        OperationalLog operationalLog) {
        this(virtualHostName, workDirectory, clientAddress, operationalLog, null);
    }
}
