package org.tandembroker.perftests;

import java.util.List;

/**
 * One column of the durability matrix: a broker set-up that {@link MatrixBenchmark} starts on loopback (a
 * standalone {@code bdb} broker, or a {@code bdb-ha} group of two or three broker processes), the peer
 * ({@link PeerCluster}: Apache ActiveMQ Artemis standalone or as a replicated primary/backup pair), or an external
 * broker the user names by URL.
 *
 * @param id             the name on the command line ({@code --configs}), in CSV rows and in file names
 * @param label          the column heading of the tables and the chart's series name (the spec's wording)
 * @param nodes          1 for the standalone store, 2 or 3 for a replication group, 0 for an external broker
 * @param durability     the store's {@code <durability>}: a sync policy for {@code bdb}, the
 *                       {@code MASTER,REPLICA,ACK} triplet for {@code bdb-ha}
 * @param coalescingSync the store's {@code <coalescingSync>}
 * @param replicationTls whether the group replicates over TLS ({@code <replicationTls>}, node certificates made by
 *                       {@link HaCluster} with keytool)
 * @param peer           the peer set-up this column runs, or null for Tandem (or an external broker)
 * @param variant        the build and JVM options of Tandem's brokers ({@code --variant}), or null for the command's
 *                       own ({@code --lib}, {@code --broker-jvm-option})
 */
public record MatrixConfiguration(String id, String label, int nodes, String durability, boolean coalescingSync,
                                  boolean replicationTls, PeerCluster.Shape peer, BrokerVariant variant) {

    public MatrixConfiguration(String id, String label, int nodes, String durability, boolean coalescingSync) {
        this(id, label, nodes, durability, coalescingSync, false, null);
    }

    public MatrixConfiguration(String id, String label, int nodes, String durability, boolean coalescingSync,
                               boolean replicationTls, PeerCluster.Shape peer) {
        this(id, label, nodes, durability, coalescingSync, replicationTls, peer, null);
    }

    /** The baseline: the standalone store with the broker's default settings. */
    public static final MatrixConfiguration NON_HA = new MatrixConfiguration("non-ha", "No HA", 1, "NO_SYNC", true);
    public static final MatrixConfiguration SYNC_SYNC_ALL = new MatrixConfiguration("sync-sync-all",
            "SYNC, SYNC, ALL", 2, "SYNC,SYNC,ALL", false);
    /** The HA default: {@code NO_SYNC,NO_SYNC,SIMPLE_MAJORITY} with coalescing-sync, two nodes. */
    public static final MatrixConfiguration DEFAULT = new MatrixConfiguration("default",
            "NO_SYNC, NO_SYNC, SIMPLE_MAJORITY - coalescing-sync (default)", 2, "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY",
            true);

    /** The peer standalone: Artemis with a synced journal. */
    public static final MatrixConfiguration ARTEMIS = new MatrixConfiguration("artemis", PeerCluster.PRODUCT
            + " standalone (peer)", 1, PeerCluster.durability(PeerCluster.Shape.STANDALONE), false, false,
            PeerCluster.Shape.STANDALONE);
    /** The peer pair: Artemis primary/backup with shared-nothing replication. */
    public static final MatrixConfiguration ARTEMIS_PAIR = new MatrixConfiguration("artemis-pair", PeerCluster.PRODUCT
            + " replicated pair (peer)", 2, PeerCluster.durability(PeerCluster.Shape.REPLICATED_PAIR), false, false,
            PeerCluster.Shape.REPLICATED_PAIR);

    /**
     * Every configuration of the matrix, in the tables' column order (the spec's, then the default, then the
     * peers).
     */
    public static final List<MatrixConfiguration> ALL = List.of(
            NON_HA,
            SYNC_SYNC_ALL,
            new MatrixConfiguration("wns-wns-all", "WRITE_NO_SYNC, WRITE_NO_SYNC, ALL", 2,
                    "WRITE_NO_SYNC,WRITE_NO_SYNC,ALL", false),
            new MatrixConfiguration("wns-wns-all-coalescing", "WRITE_NO_SYNC, WRITE_NO_SYNC, ALL - coalescing-sync",
                    2, "WRITE_NO_SYNC,WRITE_NO_SYNC,ALL", true),
            new MatrixConfiguration("wns-ns-all-coalescing", "WRITE_NO_SYNC, NO_SYNC, ALL - coalescing-sync", 2,
                    "WRITE_NO_SYNC,NO_SYNC,ALL", true),
            new MatrixConfiguration("ns-ns-all-coalescing", "NO_SYNC, NO_SYNC, ALL - coalescing-sync", 2,
                    "NO_SYNC,NO_SYNC,ALL", true),
            DEFAULT,
            new MatrixConfiguration("default-tls", "default, replication over TLS", 2,
                    "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY", true, true, null),
            new MatrixConfiguration("default-3-nodes", "default, 3 nodes", 3, "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY",
                    true),
            ARTEMIS,
            ARTEMIS_PAIR);

    /** An external broker: one column, nothing started. */
    public static MatrixConfiguration external(String label) {
        return new MatrixConfiguration("external", label, 0, "unknown (external broker)", false);
    }

    /** The configuration called {@code id}; throws naming the known ids. */
    public static MatrixConfiguration named(String id) {
        return ALL.stream().filter(c -> c.id.equals(id)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("unknown configuration '" + id + "'; known: "
                        + String.join(", ", ALL.stream().map(MatrixConfiguration::id).toList())));
    }

    /**
     * This Tandem set-up run by {@code variant}: id {@code <id>@<variant>} and label {@code <label> [<variant>]}, so
     * that the variants of one set-up are columns side by side.
     */
    public MatrixConfiguration withVariant(BrokerVariant variant) {
        if (isPeer() || external() || this.variant != null) {
            throw new IllegalArgumentException(id + " takes no variant: only Tandem's own set-ups do, once");
        }
        return new MatrixConfiguration(id + "@" + variant.name(), label + " [" + variant.name() + "]", nodes,
                durability, coalescingSync, replicationTls, null, variant);
    }

    /** The id of the set-up without its variant ({@code default} for {@code default@base}). */
    public String setupId() {
        int at = id.indexOf('@');
        return at < 0 ? id : id.substring(0, at);
    }

    /** Whether this column runs {@code setup}, in any variant. */
    public boolean runs(MatrixConfiguration setup) {
        return setupId().equals(setup.setupId());
    }

    /** The column of {@code setup} run by this column's variant (the same column's set-up for a baseline). */
    public MatrixConfiguration sameVariant(MatrixConfiguration setup) {
        return variant == null ? setup : setup.withVariant(variant);
    }

    public boolean replicated() {
        return nodes > 1;
    }

    public boolean external() {
        return nodes == 0;
    }

    /** Whether this column is the peer broker (Artemis) rather than Tandem. */
    public boolean isPeer() {
        return peer != null;
    }

    /**
     * The peer column Tandem's column is compared with: the Artemis pair for a replicated set-up, Artemis standalone
     * for the standalone one; empty for the peers themselves and an external broker.
     */
    public java.util.Optional<MatrixConfiguration> comparedPeer() {
        if (isPeer() || external()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(replicated() ? ARTEMIS_PAIR : ARTEMIS);
    }

    /** The settings in words, for the tables: store type, nodes, durability, coalescing-sync. */
    public String settings() {
        if (external()) {
            return "external broker";
        }
        if (isPeer()) {
            return "Apache ActiveMQ Artemis 2.50, " + (replicated() ? "replicated primary/backup (shared-nothing)"
                    : "standalone") + ", persistent; " + durability;
        }
        return (replicated() ? "bdb-ha, " + nodes + " nodes" : "bdb (standalone)") + ", durability " + durability
                + ", coalescingSync " + coalescingSync + (replicationTls ? ", replication over TLS" : "")
                + (variant == null ? "" : "; variant " + variant.describe());
    }
}
