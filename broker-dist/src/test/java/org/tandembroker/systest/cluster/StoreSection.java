package org.tandembroker.systest.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the {@code <store>} element of a node's virtual host file. A test can also pass any XML of its own;
 * this only saves it from string formatting and escaping.
 *
 * <pre>{@code
 * StoreSection.standalone()                                  // <store type="bdb"> with storePath default/store
 * StoreSection.replicated(node, group)                       // <store type="bdb-ha"> for one node of a group
 *     .set("durability", "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY")
 *     .set("designatedPrimary", "true")
 *     .repConfig("je.rep.electionsPrimaryRetries", "2")
 *     .xml()
 * }</pre>
 * Simple elements keep the order they were first set in; {@code envConfig} and {@code repConfig} pairs follow.
 */
public final class StoreSection {
    /** The store directory, relative to the node's work directory (which survives kill and restart). */
    public static final String STORE_PATH = "default/store";
    public static final String DEFAULT_GROUP = "tandem";

    private final String type;
    private final Map<String, String> elements = new LinkedHashMap<>();
    private final List<String[]> envConfig = new ArrayList<>();
    private final List<String[]> repConfig = new ArrayList<>();
    private final Map<String, Map<String, String>> nested = new LinkedHashMap<>();

    private StoreSection(String type) {
        this.type = type;
        elements.put("storePath", STORE_PATH);
    }

    /** A {@code bdb} store with storePath only; add elements with {@link #set}. */
    public static StoreSection bdb() {
        return new StoreSection("bdb");
    }

    /** {@code <store type="bdb">} with the distribution's defaults (NO_SYNC plus coalescing sync). */
    public static String standalone() {
        return bdb().set("durability", "NO_SYNC").set("coalescingSync", "true").xml();
    }

    /**
     * A {@code bdb-ha} store for {@code node}: groupName {@value #DEFAULT_GROUP}, nodeName its name, nodeHostPort
     * its replication address, and helperHostPort the first node of {@code group} (which creates the group; the
     * others join through it). Override any of them with {@link #set}.
     */
    public static StoreSection replicated(NodeIdentity node, List<NodeIdentity> group) {
        return new StoreSection("bdb-ha")
                .set("groupName", DEFAULT_GROUP)
                .set("nodeName", node.name())
                .set("nodeHostPort", node.replicationAddress())
                .set("helperHostPort", group.get(0).replicationAddress());
    }

    /**
     * JE settings that keep failure detection in a test to seconds: a replica gives up a silent master, and a
     * master a silent replica, after 5 s without a heartbeat ({@code je.rep.replicaTimeout},
     * {@code je.rep.feederTimeout}; JE's default is 30 s, JE's heartbeat interval 1 s); a master rebroadcasts
     * the election result to nodes not connected to it every 5 s ({@code je.rep.electionsRebroadcastPeriod},
     * default 1 min), so that a master cut off during an election learns of its successor soon after the
     * partition heals. A node killed with SIGKILL is noticed at once anyway (its connections are reset), but
     * an election still tries to reach it: its address no longer answers at all, so each attempt waits for
     * JE's election connect and read timeouts ({@code je.rep.electionsOpenTimeout},
     * {@code je.rep.electionsReadTimeout}, 10 s each by default, 2 s here).
     */
    public StoreSection quickFailureDetection() {
        return repConfig("je.rep.replicaTimeout", "5 s")
                .repConfig("je.rep.feederTimeout", "5 s")
                .repConfig("je.rep.electionsRebroadcastPeriod", "5 s")
                .repConfig("je.rep.electionsOpenTimeout", "2 s")
                .repConfig("je.rep.electionsReadTimeout", "2 s");
    }

    /**
     * For two-node groups: a designated primary takes over at the first election it cannot win with the other
     * node ({@code je.rep.electionsPrimaryRetries} 0; JE's default 2 rides out short network blips, at the cost
     * of seconds per failover). docs/ha.md: the in-JVM tests use the same.
     */
    public StoreSection immediatePrimaryActivation() {
        return repConfig("je.rep.electionsPrimaryRetries", "0");
    }

    /** Sets (or replaces) the simple element {@code <name>value</name>}. */
    public StoreSection set(String name, String value) {
        elements.put(name, value);
        return this;
    }

    /** Leaves out the simple element {@code name}. */
    public StoreSection remove(String name) {
        elements.remove(name);
        return this;
    }

    /**
     * Sets (or replaces) an element with simple children, e.g. {@code <replicationTls>} with its
     * {@code <keyStore>}, {@code <trustStore>} ... (written after the simple elements, in the order given).
     */
    public StoreSection element(String name, Map<String, String> children) {
        nested.put(name, new LinkedHashMap<>(children));
        return this;
    }

    public StoreSection envConfig(String name, String value) {
        envConfig.add(new String[] {name, value});
        return this;
    }

    public StoreSection repConfig(String name, String value) {
        repConfig.add(new String[] {name, value});
        return this;
    }

    public String xml() {
        StringBuilder xml = new StringBuilder("<store type=\"").append(escape(type)).append("\">\n");
        elements.forEach((name, value) ->
                xml.append("    <").append(name).append('>').append(escape(value)).append("</").append(name).append(">\n"));
        nested.forEach((name, children) -> {
            xml.append("    <").append(name).append(">\n");
            children.forEach((child, value) -> xml.append("      <").append(child).append('>').append(escape(value))
                    .append("</").append(child).append(">\n"));
            xml.append("    </").append(name).append(">\n");
        });
        pairs(xml, "envConfig", envConfig);
        pairs(xml, "repConfig", repConfig);
        return xml.append("  </store>").toString();
    }

    @Override
    public String toString() {
        return xml();
    }

    private static void pairs(StringBuilder xml, String element, List<String[]> pairs) {
        for (String[] pair : pairs) {
            xml.append("    <").append(element).append("><name>").append(escape(pair[0])).append("</name><value>")
                    .append(escape(pair[1])).append("</value></").append(element).append(">\n");
        }
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
