package org.tandembroker.perftests;

import java.util.List;

/**
 * One store configuration under test: the {@code <store type="bdb">} durability settings and, in words, what a
 * publisher's confirmation means with them (the benchmark tables print it next to the figures).
 *
 * @param name           short name used in tables, CSV and file names
 * @param durability     JE sync policy of a commit: {@code SYNC}, {@code WRITE_NO_SYNC} or {@code NO_SYNC}
 * @param coalescingSync whether batches of commits share one fsync before their publishers are confirmed
 * @param fsyncBeforeConfirm whether a confirmed message has been forced to disk
 * @param confirmMeans   what a confirmed send guarantees
 */
public record StoreSetup(String name, String durability, boolean coalescingSync, boolean fsyncBeforeConfirm,
                         String confirmMeans) {

    /** The broker's default: commits written without sync, then one fsync per batch before confirming. */
    public static final StoreSetup COALESCING = new StoreSetup("coalescing", "NO_SYNC", true, true,
            "fsynced before confirm, one fsync per batch of commits");

    /** Commits confirmed from JE's log buffer: neither written to the OS nor fsynced when confirmed. */
    public static final StoreSetup NO_SYNC = new StoreSetup("no-sync", "NO_SYNC", false, false,
            "NOT fsynced: confirmed from JE's log buffer (lost if the broker or machine crashes)");

    /** The honest baseline: every commit fsyncs on its own. */
    public static final StoreSetup SYNC = new StoreSetup("sync", "SYNC", false, true,
            "fsynced before confirm, one fsync per commit");

    public static final List<StoreSetup> ALL = List.of(COALESCING, NO_SYNC, SYNC);

    /** The setup called {@code name}; throws naming the allowed names. */
    public static StoreSetup named(String name) {
        return ALL.stream().filter(s -> s.name.equals(name)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("unknown store setup '" + name + "'; allowed: "
                        + String.join(", ", ALL.stream().map(StoreSetup::name).toList())));
    }

    /** The settings as the virtual host file spells them. */
    public String settings() {
        return durability + ", coalescingSync " + coalescingSync;
    }
}
