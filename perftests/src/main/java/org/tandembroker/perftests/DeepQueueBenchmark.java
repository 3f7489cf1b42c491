package org.tandembroker.perftests;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Consuming from a deep queue with a JMS selector: a broker process; one producer fills a queue with
 * {@code --depth} persistent messages (transacted, a commit per 1,000) whose property {@code colour} is
 * {@code red} for one message in {@code --match-every} and {@code blue} otherwise; then a consumer with the selector
 * {@code colour = 'red'} takes every red one, and a consumer without a selector drains the rest. Prints each phase's
 * rate. Every message must arrive (exit code 0), or the run fails (1).
 *
 * <p>Threads: the main thread runs every phase in turn.
 */
@Command(name = "deep-queue", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Fill a queue, then consume it with a selector and without one; print the rates.")
public final class DeepQueueBenchmark implements Callable<Integer> {
    private static final int COMMIT_EVERY = 1_000;
    private static final long RECEIVE_TIMEOUT_MILLIS = 30_000;

    @Option(names = "--depth", defaultValue = "100000",
            description = "Messages on the queue (default: ${DEFAULT-VALUE}).")
    private int depth;

    @Option(names = "--match-every", defaultValue = "10",
            description = "One message in this many matches the selector (default: ${DEFAULT-VALUE}).")
    private int matchEvery;

    @Option(names = "--body-size", defaultValue = "1024", description = "Body size (default: ${DEFAULT-VALUE}).")
    private int bodySize;

    @Option(names = "--store", defaultValue = "no-sync",
            description = "Store setup: coalescing, no-sync or sync (default: ${DEFAULT-VALUE}).")
    private String store;

    @Option(names = "--lib", paramLabel = "DIR",
            description = "The assembled broker's libraries (default: broker-dist/target/lib).")
    private Path lib = BrokerProcess.defaultLib();

    @Option(names = "--temp", paramLabel = "DIR",
            description = "Where the broker's temporary directory (and store) goes (default: the system's).")
    private Path temp = Path.of(System.getProperty("java.io.tmpdir"));

    public static void main(String[] args) {
        System.exit(new CommandLine(new DeepQueueBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Path directory = Files.createTempDirectory(temp, "tandem-perf-deep-");
        try {
            BrokerFiles files = BrokerFiles.write(directory, lib, StoreSetup.named(store), null, List.of());
            try (BrokerProcess broker = BrokerProcess.start(lib, files, List.of())) {
                Clients clients = new Clients(broker.uri(), files.user(), files.password(), bodySize, 0);
                int matching = (depth + matchEvery - 1) / matchEvery;
                Duration fill = fill(clients);
                Duration selected = drain(clients, "colour = 'red'", matching);
                Duration rest = drain(clients, null, depth - matching);
                System.out.printf(Locale.ROOT, "deep-queue: %,d messages of %d B, 1 in %d selected, store %s%n",
                        depth, bodySize, matchEvery, store);
                System.out.printf(Locale.ROOT, "| phase | messages | seconds | msg/s |%n| --- | --- | --- | --- |%n");
                row("fill (transacted, 1,000 per commit)", depth, fill);
                row("selector colour = 'red' takes its matches", matching, selected);
                row("no selector drains the rest", depth - matching, rest);
                broker.stop(Duration.ofSeconds(30));
                return 0;
            }
        } catch (IllegalStateException missing) {
            System.err.println("deep-queue: " + missing.getMessage());
            return 1;
        } finally {
            ResultsFolder.deleteTree(directory);
        }
    }

    private static void row(String phase, int messages, Duration took) {
        double seconds = took.toNanos() / 1e9;
        System.out.printf(Locale.ROOT, "| %s | %,d | %.1f | %,.0f |%n", phase, messages, seconds, messages / seconds);
    }

    private Duration fill(Clients clients) throws Exception {
        try (Connection connection = clients.connection("deep-filler")) {
            Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
            MessageProducer producer = session.createProducer(session.createQueue("deep"));
            long start = System.nanoTime();
            for (int i = 0; i < depth; i++) {
                BytesMessage message = clients.message(session, 0, i);
                message.setStringProperty("colour", i % matchEvery == 0 ? "red" : "blue");
                producer.send(message);
                if ((i + 1) % COMMIT_EVERY == 0 || i == depth - 1) {
                    session.commit();
                }
            }
            return Duration.ofNanos(System.nanoTime() - start);
        }
    }

    private static Duration drain(Clients clients, String selector, int expected) throws Exception {
        try (Connection connection = clients.connection("deep-drainer")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("deep");
            MessageConsumer consumer = session.createConsumer(queue, selector);
            long start = System.nanoTime();
            List<String> wrong = new ArrayList<>();
            for (int i = 0; i < expected; i++) {
                BytesMessage message = (BytesMessage) consumer.receive(RECEIVE_TIMEOUT_MILLIS);
                if (message == null) {
                    throw new IllegalStateException("only " + i + " of " + expected + " messages arrived"
                            + (selector == null ? "" : " for selector " + selector));
                }
                if (selector != null && !"red".equals(message.getStringProperty("colour"))) {
                    wrong.add(message.getStringProperty("colour"));
                }
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            if (!wrong.isEmpty()) {
                throw new IllegalStateException(wrong.size() + " messages the selector does not select arrived");
            }
            return took;
        }
    }
}
