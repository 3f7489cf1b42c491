package org.tandembroker.tools.haadmin;

import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;

/** {@code ha-admin status}: every node of the group, as the asked node sees it. */
@Command(name = "status", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Every node of the group as the asked node sees it: name, host:port, type, state, and on the "
                + "master each replica's lag.", "A node's state is what the asked node knows of it (empty: unknown); "
                + "'ping NODE' asks the node itself."})
final class StatusCommand extends HaAdminCommand {

    /**
     * The group as one node sees it.
     *
     * @param group             the group's name
     * @param virtualHost       the virtual host asked
     * @param askedNode         the node whose JMX connector was asked
     * @param askedNodeState    its JE state
     * @param master            the master it knows, or null
     * @param designatedPrimary whether the asked node is designated primary
     * @param nodes             every node of the group
     */
    record GroupStatus(String group, String virtualHost, String askedNode, String askedNodeState, String master,
                       boolean designatedPrimary, List<NodeStatus> nodes) implements Result {

        @Override
        public String text() {
            StringBuilder text = new StringBuilder();
            text.append("group ").append(group).append(", virtual host ").append(virtualHost).append(", asked node ")
                    .append(askedNode).append(" (").append(askedNodeState).append(")\n");
            text.append("master: ").append(master == null ? "none known" : master).append("; ").append(askedNode)
                    .append(designatedPrimary ? " is" : " is not").append(" designated primary\n");
            String format = "%-" + width(nodes, NodeStatus::name, "NODE") + "s  %-" + width(nodes,
                    NodeStatus::hostPort, "HOST:PORT") + "s  %-9s  %-8s  %10s  %10s%n";
            text.append(String.format(Locale.ROOT, format, "NODE", "HOST:PORT", "TYPE", "STATE", "LAG(VLSN)",
                    "DELAY(ms)"));
            for (NodeStatus node : nodes) {
                text.append(String.format(Locale.ROOT, format, node.name(), node.hostPort(), node.type(),
                        node.state() == null ? "?" : node.state(), node.lagVlsns() == null ? "-" : node.lagVlsns(),
                        node.delayMillis() == null ? "-" : node.delayMillis()));
            }
            return text.toString();
        }

        @Override
        public Object json() {
            return this;
        }

        private static int width(List<NodeStatus> nodes, java.util.function.Function<NodeStatus, String> column,
                                 String header) {
            return Math.max(header.length(), nodes.stream().mapToInt(n -> column.apply(n).length()).max().orElse(0));
        }
    }

    /**
     * One node.
     *
     * @param name        its name
     * @param hostPort    its replication address
     * @param type        ELECTABLE, ARBITER, SECONDARY, MONITOR
     * @param state       its state as the asked node knows it, or null when unknown
     * @param lagVlsns    on the master's view: replication stream entries it has not acknowledged, or null
     * @param delayMillis on the master's view: how old its last acknowledged transaction was, or null
     */
    record NodeStatus(String name, String hostPort, String type, String state, Long lagVlsns, Long delayMillis) {
    }

    @Override
    Result execute(ReplicatedStoreClient store) {
        List<NodeStatus> nodes = store.members().stream().map(m -> new NodeStatus(m.name(), m.hostPort(), m.type(),
                m.state() == null || m.state().isEmpty() ? null : m.state(), m.lagVlsns(), m.delayMillis())).toList();
        String master = store.masterName();
        return new GroupStatus(store.groupName(), store.virtualHost(), store.nodeName(), store.nodeState(),
                master == null || master.isEmpty() ? null : master, store.designatedPrimary(), nodes);
    }
}
