package org.tandembroker.core.daemon;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.config.ConfigException;

/**
 * The daemon's entry point: {@code BrokerMain [--config etc/broker.xml] [--work DIR] [--port N]}.
 * Exit codes: 0 after a clean shutdown (SIGTERM), 1 start-up failure, 2 configuration error or bad arguments.
 */
public final class BrokerMain {
    private BrokerMain() {
    }

    public static void main(String[] args) {
        Path home = Path.of(System.getProperty("tandem.home", "."));
        Path configFile = home.resolve("etc/broker.xml");
        Path work = Path.of("work");
        Map<String, String> overrides = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (i + 1 >= args.length && !arg.equals("--help")) {
                usage("missing value after " + arg);
            }
            switch (arg) {
                case "--config" -> configFile = Path.of(args[++i]);
                case "--work" -> work = Path.of(args[++i]);
                case "--port" -> overrides.put("listeners.amqp.port", args[++i]);
                case "--help" -> {
                    System.out.println(USAGE);
                    System.exit(0);
                }
                default -> usage("unknown argument " + arg);
            }
        }
        work = work.toAbsolutePath().normalize();
        // Before the first logger is created: logback.xml writes its file under ${tandem.work}.
        System.setProperty("tandem.work", work.toString());
        try {
            Files.createDirectories(work);
        } catch (Exception e) {
            System.err.println("tandem: cannot create work directory " + work + ": " + e.getMessage());
            System.exit(1);
        }
        BrokerConfig config;
        try {
            config = BrokerConfigLoader.load(configFile, overrides);
        } catch (ConfigException e) {
            System.err.println("tandem: configuration error: " + e.getMessage());
            System.exit(2);
            return;
        }
        Broker broker;
        try {
            broker = Broker.start(config, work);
        } catch (ConfigException e) {
            System.err.println("tandem: configuration error: " + e.getMessage());
            System.exit(2);
            return;
        } catch (Exception e) {
            System.err.println("tandem: start-up failed: " + e);
            e.printStackTrace();
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            stopped.countDown();
        }, "shutdown"));
        reloadPermissionsOnSighup(broker);
        System.out.println("Tandem broker ready; work directory " + work);
        for (String address : broker.boundAddresses()) {
            System.out.println("  listening on " + address);
        }
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code kill -HUP <pid>} re-reads the permissions file (the JMX operation reloadPermissions does the same). */
    @SuppressWarnings("restriction")
    private static void reloadPermissionsOnSighup(Broker broker) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"), signal -> broker.accessControl().reload());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            System.err.println("tandem: SIGHUP cannot reload the permissions file on this platform (" + e.getMessage()
                    + "); use the JMX operation reloadPermissions");
        }
    }

    private static final String USAGE = """
            usage: broker [--config FILE] [--work DIR] [--port N]
              --config FILE  broker configuration (default: $TANDEM_HOME/etc/broker.xml)
              --work DIR     work directory for stores and logs (default: ./work)
              --port N       port of the listener named 'amqp' (overrides the file)""";

    private static void usage(String problem) {
        System.err.println("tandem: " + problem);
        System.err.println(USAGE);
        System.exit(2);
    }
}
