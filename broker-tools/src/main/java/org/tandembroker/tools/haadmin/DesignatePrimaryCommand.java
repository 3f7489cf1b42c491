package org.tandembroker.tools.haadmin;

import java.time.Duration;
import org.tandembroker.tools.ToolFailure;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ha-admin designate-primary NODE}: the operator's failover step of a two-node group (spec 1.6.3, figure
 * 1.3 step 3), run against NODE's own JMX connector. The broker refuses while the other node still answers as
 * MASTER (two masters would be a split brain); {@code --force} designates without that check.
 */
@Command(name = "designate-primary", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Designates NODE primary (two-node groups): with its master gone it becomes master.",
                "Asks NODE's own JMX connector: --host/--port may reach any node of the group (NODE's published "
                        + "address, or --nodes, is used). Refused (exit 1) while the other node still answers as "
                        + "MASTER: make sure it is down first. --force skips that check."})
final class DesignatePrimaryCommand extends HaAdminCommand {
    private static final Duration POLL = Duration.ofMillis(250);

    @Parameters(index = "0", paramLabel = "NODE", description = "The node to designate.")
    String node;

    @Option(names = "--force", description = "Designate without checking that no other node is MASTER (you take "
            + "responsibility for a split brain).")
    boolean force;

    @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "0",
            description = "Wait up to this long for NODE to become MASTER (default: do not wait).")
    int waitSeconds;

    /**
     * What the designation did.
     *
     * @param node              the node
     * @param designatedPrimary its flag now (true)
     * @param forced            whether the split-brain check was skipped
     * @param nodeState         its state after the designation (after waiting, with --wait)
     * @param brokersAccount    the broker's account of the designation: what the other nodes answered (a node that
     *                          did not answer within a few seconds is named), or that they were not asked
     */
    record Designation(String node, boolean designatedPrimary, boolean forced, String nodeState,
            String brokersAccount) implements Result {
        @Override
        public String text() {
            return "node " + node + " is designated primary" + (forced ? " (forced, without checking the other node)"
                    : "") + "; it is " + nodeState + (nodeState.equals("MASTER") ? "" : ": JE makes it master at its "
                    + "next election if its master is gone") + "\n" + brokersAccount + "\n";
        }

        @Override
        public Object json() {
            return this;
        }
    }

    @Override
    Result execute(ReplicatedStoreClient asked) {
        return onNode(asked, node, this::designate);
    }

    private Result designate(ReplicatedStoreClient store) {
        String account;
        try {
            account = store.designatePrimary(force);
        } catch (ToolFailure refused) {
            if (refused.exitCode() == ToolFailure.REFUSED && refused.getMessage().contains("split brain")) {
                throw new ToolFailure(ToolFailure.REFUSED, brokersExplanation(refused) + " (with ha-admin: "
                        + "designate-primary " + node + " --force)", refused);
            }
            throw refused;
        }
        String state = store.nodeState();
        long deadline = System.nanoTime() + Duration.ofSeconds(waitSeconds).toNanos();
        while (!state.equals("MASTER") && System.nanoTime() < deadline) {
            pause();
            state = store.nodeState();
        }
        if (waitSeconds > 0 && !state.equals("MASTER")) {
            throw ToolFailure.refused("node " + node + " is designated primary but still " + state + " after "
                    + waitSeconds + " s: is another node master (status), or does JE retry elections "
                    + "(je.rep.electionsPrimaryRetries)?");
        }
        return new Designation(node, store.designatedPrimary(), force, state, account);
    }

    /** The broker's own words: the MBean's exception, under JMX's wrappers. */
    private static String brokersExplanation(ToolFailure refused) {
        Throwable root = refused;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == refused ? refused.getMessage() : String.valueOf(root.getMessage()).trim();
    }

    private static void pause() {
        try {
            Thread.sleep(POLL.toMillis()); // polling the broker for the operator, not synchronising a test
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ToolFailure.refused("interrupted while waiting for the node to become master");
        }
    }
}
