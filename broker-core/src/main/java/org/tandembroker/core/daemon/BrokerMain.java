package org.tandembroker.core.daemon;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.slf4j.LoggerFactory;

/**
 * The daemon's entry point: {@code BrokerMain [--config etc/broker.xml] [--work DIR] [--port N]}.
 * Exit codes: 0 after a clean shutdown (SIGTERM), 1 start-up failure (a port in use, the work directory held by
 * another broker, a store that cannot open), 2 configuration error or bad arguments. Every start-up failure is one
 * line on standard error and in the log file ({@code BRK-1007}); its stack trace is logged at debug level only.
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
        OperationalLog operationalLog = new OperationalLog();
        WorkDirectoryLock lock;
        try {
            lock = WorkDirectoryLock.acquire(work);
        } catch (StartupFailure e) {
            exit(operationalLog, false, 1, "start-up failed: ", e);
            return;
        }
        BrokerConfig config;
        try {
            config = BrokerConfigLoader.load(configFile, overrides);
        } catch (ConfigException e) {
            lock.close();
            exit(operationalLog, false, 2, "configuration error: ", e);
            return;
        }
        Broker broker;
        try {
            broker = Broker.start(config, work, operationalLog);
        } catch (ConfigException e) {
            lock.close();
            exit(operationalLog, true, 2, "configuration error: ", e); // Broker.start logged BRK-1007
            return;
        } catch (Exception e) {
            lock.close();
            exit(operationalLog, true, 1, "start-up failed: ", e);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            lock.close();
            stopped.countDown();
        }, "shutdown"));
        reloadPermissionsOnSighup(broker);
        System.out.println("Tandem broker started; work directory " + work);
        for (String address : broker.boundAddresses()) {
            System.out.println("  listening on " + address);
        }
        broker.ready().thenRun(() -> System.out.println("Tandem broker ready"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One line on standard error and, through the operational log, in {@code work/log/broker.log} (BRK-1007, unless
     * {@link Broker#start} has logged it); the stack trace only at debug level.
     */
    private static void exit(OperationalLog operationalLog, boolean logged, int code, String prefix, Exception e) {
        String line = e instanceof ConfigException || e instanceof StartupFailure
                ? e.getMessage() : String.valueOf(e);
        if (!logged) {
            operationalLog.log(LogCode.BRK_1007, prefix + line);
        }
        LoggerFactory.getLogger(BrokerMain.class).debug("Start-up failed", e);
        System.err.println("tandem: " + prefix + line);
        System.exit(code);
    }

    /** {@code kill -HUP <pid>} re-reads the permissions file (the JMX operation reloadPermissions does the same). */
    @SuppressWarnings("restriction")
    private static void reloadPermissionsOnSighup(Broker broker) {
        try {
            sun.misc.SignalHandler previous = sun.misc.Signal.handle(new sun.misc.Signal("HUP"),
                    signal -> broker.accessControl().reload());
            if (previous == sun.misc.SignalHandler.SIG_IGN) {
                // The JVM leaves a signal that was ignored when it started (nohup) ignored: no handler is in force.
                System.err.println("tandem: SIGHUP is ignored by this process (started with nohup, or its parent "
                        + "ignores SIGHUP), so kill -HUP does not reload the permissions file; use the JMX operation "
                        + "reloadPermissions, or start the broker with SIGHUP at its default (env --default-signal=HUP)");
            }
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
