package org.tandembroker.core.vhost;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.QueueOptions;

/**
 * What the virtual host file says about a durable queue that already exists in the store, compared with what the
 * store holds: the limits (depth, TTL, delivery attempts, dead-letter queue) only govern what happens next, so the
 * file's values are applied; the queue's order and keys (priority, last-value key) and its durability shape the
 * messages it already holds, so the stored values are kept and the difference is reported.
 *
 * @param queue   the settings the recovered queue runs with: the file's limits and the store's options
 * @param applied each applied change, e.g. {@code maxDepthMessages 0 -> 100}; empty if none
 * @param kept    each difference not applied, e.g. {@code priority stored true, file false}; empty if none
 */
record DeclaredQueueChanges(QueueConfig queue, List<String> applied, List<String> kept) {

    static DeclaredQueueChanges compare(QueueConfig stored, QueueConfig file) {
        List<String> applied = new ArrayList<>();
        change(applied, "maxDepthMessages", stored.maxDepthMessages(), file.maxDepthMessages());
        change(applied, "maxDepthBytes", stored.maxDepthBytes(), file.maxDepthBytes());
        change(applied, "messageTtl", stored.messageTtlMillis() + " ms", file.messageTtlMillis() + " ms");
        change(applied, "maxDeliveries", stored.maxDeliveries(), file.maxDeliveries());
        change(applied, "deadLetterQueue", stored.deadLetterQueue(), file.deadLetterQueue());
        List<String> kept = new ArrayList<>();
        QueueOptions storedOptions = stored.options();
        QueueOptions fileOptions = file.options();
        difference(kept, "durable", stored.durable(), file.durable());
        difference(kept, "priority", storedOptions.priority(), fileOptions.priority());
        difference(kept, "lastValueKey", storedOptions.lastValueKey(), fileOptions.lastValueKey());
        QueueConfig queue = new QueueConfig(stored.name(), stored.durable(), file.maxDepthMessages(),
                file.maxDepthBytes(), file.messageTtlMillis(), file.maxDeliveries(), file.deadLetterQueue(),
                storedOptions);
        return new DeclaredQueueChanges(queue, List.copyOf(applied), List.copyOf(kept));
    }

    private static void change(List<String> changes, String attribute, Object stored, Object file) {
        if (!Objects.equals(stored, file)) {
            changes.add(attribute + " " + shown(stored) + " -> " + shown(file));
        }
    }

    private static void difference(List<String> differences, String attribute, Object stored, Object file) {
        if (!Objects.equals(stored, file)) {
            differences.add(attribute + " stored " + shown(stored) + ", file " + shown(file));
        }
    }

    private static String shown(Object value) {
        return value == null ? "(none)" : value.toString();
    }
}
