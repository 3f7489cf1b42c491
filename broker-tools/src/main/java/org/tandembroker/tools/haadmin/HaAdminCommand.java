package org.tandembroker.tools.haadmin;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.tandembroker.tools.JmxSession;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.tools.JmxSession;
import org.tandembroker.tools.JmxTarget;
import org.tandembroker.tools.ToolFailure;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every {@code ha-admin} command shares: the connection options, {@code --vhost}, {@code --json},
 * {@code --timeout}; connecting, running the command's calls within the timeout, and printing the result (text, or
 * JSON) or the failure (one line on standard error; with {@code --json} also a JSON object on standard output).
 *
 * <p><b>Threads.</b> The command's JMX calls run on one daemon thread, so that a broker that stops answering (a
 * paused process, a dropped network) ends the command after {@code --timeout} instead of hanging it.
 */
abstract class HaAdminCommand implements Callable<Integer> {
    @Mixin
    JmxTarget broker = new JmxTarget();

    @Option(names = "--vhost", paramLabel = "NAME", defaultValue = "default",
            description = "The virtual host on the bdb-ha store (default: ${DEFAULT-VALUE}).")
    String virtualHost = "default";

    @Option(names = "--json", description = "Print the result (or the failure) as JSON on standard output.")
    boolean json;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "90",
            description = "Give up when the broker has not answered within this long (default: ${DEFAULT-VALUE}; 0: "
                    + "no limit).")
    int timeoutSeconds = 90;

    @Option(names = "--nodes", paramLabel = "HOST:PORT[,HOST:PORT...]", split = ",",
            description = "JMX connectors of the group's other nodes, for a command about a node other than the one "
                    + "--host/--port reach when the group does not tell its address (a node publishes it to its group "
                    + "when its broker has <jmx>).")
    List<String> nodes = new ArrayList<>();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Spec
    CommandSpec spec;

    /**
     * Runs {@code work} on {@code node}'s own connector: the asked one when it is that node, else the address
     * {@code node} publishes to its group (asked through the asked node), else the one of {@code --nodes} that is
     * that node. Same credentials and TLS options.
     */
    <T> T onNode(ReplicatedStoreClient asked, String node, Function<ReplicatedStoreClient, T> work) {
        if (asked.nodeName().equals(node)) {
            return work.apply(asked);
        }
        NodeCheck.requireMember(asked, node);
        List<String> candidates = new ArrayList<>();
        try {
            Object published = asked.ping(node).get("ManagementAddress");
            if (published instanceof String address && !address.isBlank()) {
                candidates.add(address);
            }
        } catch (ToolFailure | javax.management.openmbean.InvalidKeyException e) {
            // the node does not answer, or an older broker: try --nodes
        }
        candidates.addAll(nodes);
        for (String address : candidates) {
            JmxSession session;
            try {
                session = broker.at(address).connect();
            } catch (ToolFailure unreachable) {
                if (unreachable.exitCode() == ToolFailure.ACCESS_DENIED) {
                    throw unreachable;
                }
                continue;
            }
            try (session) {
                ReplicatedStoreClient other = new ReplicatedStoreClient(session, virtualHost);
                if (other.nodeName().equals(node)) {
                    return work.apply(other);
                }
            }
        }
        throw new ToolFailure(ToolFailure.CANNOT_CONNECT, "cannot reach node " + node + "'s JMX connector: "
                + (candidates.isEmpty() ? "it publishes none to its group (is it running, with <jmx>?) and no "
                + "--nodes were given" : "tried " + String.join(", ", candidates)) + "; give --host/--port of "
                + node + "'s broker");
    }

    /** The command's calls on the node's replicated store; returns the result to print. */
    abstract Result execute(ReplicatedStoreClient store);

    /** A command's result: its text form, and the object its JSON form is made of. */
    interface Result {
        String text();

        Object json();
    }

    @Override
    public final Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try {
            Result result = withinTimeout();
            out.print(json ? Json.write(result.json()) : result.text());
            out.flush();
            return ToolFailure.OK;
        } catch (ToolFailure failure) {
            if (json) {
                Map<String, Object> error = new LinkedHashMap<>();
                error.put("ok", false);
                error.put("exitCode", failure.exitCode());
                error.put("error", failure.getMessage());
                out.print(Json.write(error));
                out.flush();
            }
            throw failure;
        }
    }

    private Result withinTimeout() {
        CompletableFuture<Result> work = new CompletableFuture<>();
        Thread worker = NamedThreadFactory.daemonThread("ha-admin-" + spec.name()).newThread(() -> {
            try (JmxSession session = broker.connect()) {
                work.complete(execute(new ReplicatedStoreClient(session, virtualHost)));
            } catch (Throwable e) {
                work.completeExceptionally(e);
            }
        });
        worker.start();
        try {
            return timeoutSeconds > 0 ? work.get(timeoutSeconds, TimeUnit.SECONDS) : work.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause()
                    : e.getCause();
            if (cause instanceof ToolFailure failure) {
                throw failure;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(cause);
        } catch (TimeoutException e) {
            worker.interrupt();
            throw new ToolFailure(ToolFailure.CANNOT_CONNECT, "the broker at " + broker.serviceUrl() + " did not "
                    + "answer within " + timeoutSeconds + " s (--timeout): a hung or paused broker, or a network "
                    + "dropping packets");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolFailure(ToolFailure.CANNOT_CONNECT, "interrupted");
        }
    }
}
