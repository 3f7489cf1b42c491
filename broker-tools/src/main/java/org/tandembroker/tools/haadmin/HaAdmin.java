package org.tandembroker.tools.haadmin;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.tandembroker.tools.ToolFailure;
import org.tandembroker.tools.ToolCommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code bin/ha-admin}: an operator's commands for a replication group, over a node's JMX connector (its
 * {@code org.apache.qpid:type=BDBHAMessageStore,name=<vhost>} MBean; see broker-jmx's README):
 * <pre>
 * ha-admin status                          every node of the group as the asked node sees it: state, lag
 * ha-admin designate-primary NODE [--force] [--wait S]   make NODE (the node asked) the designated primary
 * ha-admin undesignate-primary NODE        take the designation back
 * ha-admin transfer-master NODE            move the master role to the running replica NODE
 * ha-admin remove-node NODE                remove a stopped node from the group
 * ha-admin update-address NODE HOST PORT   move a stopped node to a new replication address
 * ha-admin ping NODE                       JE's DbPing view of NODE: its state, its master, its VLSNs
 * </pre>
 * Every command takes the connection options ({@code --host --port --user --password-file --tls ...}),
 * {@code --vhost} (default {@code default}) and {@code --json}.
 *
 * <p>Exit codes: 0 done; 1 refused by the broker (e.g. designating a node while the other still answers as
 * MASTER), with the broker's explanation; 2 usage (including a virtual host or node that is not there, or asking
 * the wrong node); 3 cannot connect (or no answer within {@code --timeout}); 4 authentication or role.
 */
@Command(name = "ha-admin", mixinStandardHelpOptions = true, version = "ha-admin (Tandem)",
        description = "Administers a Tandem replication group (bdb-ha virtual host) over a node's JMX connector.",
        subcommands = {StatusCommand.class, DesignatePrimaryCommand.class, UndesignatePrimaryCommand.class,
                TransferMasterCommand.class, RemoveNodeCommand.class, UpdateAddressCommand.class,
                PingCommand.class},
        synopsisSubcommandLabel = "COMMAND", usageHelpAutoWidth = true,
        footer = {"", "Exit codes: 0 done, 1 refused by the broker, 2 usage, 3 cannot connect, "
                + "4 authentication/authorisation."})
public final class HaAdmin implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    private HaAdmin() {
    }

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs a command line; returns the exit code (nothing here calls System.exit: tests and programs use this). */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return ToolCommandLine.create(new HaAdmin(), out, err).execute(args);
    }

    /** {@code ha-admin} without a command: the usage, as a usage error. */
    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        err.println("ha-admin: a command is needed");
        spec.commandLine().usage(err);
        return ToolFailure.USAGE;
    }
}
