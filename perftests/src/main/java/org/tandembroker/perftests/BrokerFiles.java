package org.tandembroker.perftests;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A complete broker configuration written into a directory the way an operator would write it: {@code broker.xml}
 * (listener on a free loopback port, the default limits of {@code etc/broker.xml}), the virtual host file with
 * the store setup under test, a users file with one benchmark user, and a console-only {@code logback.xml}.
 * The user's PBKDF2 line comes from the distribution's own {@code UserAdmin}, run as a process (this module
 * does not link against broker code). The password is random and lives only in this object.
 */
public final class BrokerFiles {
    public static final String USER = "perf";
    public static final String VIRTUAL_HOST = "default";

    private final Path directory;
    private final String password;

    private BrokerFiles(Path directory, String password) {
        this.directory = directory;
        this.password = password;
    }

    /**
     * Writes the files into {@code directory/etc}; the broker's work directory is {@code directory/work}.
     *
     * @param messageBudget the {@code <memory messageBudget>} value, e.g. {@code 128MiB}; null or empty leaves the
     *                      element out, so the broker's own default applies
     * @param envConfig     JE parameters for the store's {@code <envConfig>} elements, as {@code NAME=VALUE}
     */
    public static BrokerFiles write(Path directory, Path lib, StoreSetup store, String messageBudget,
                                    List<String> envConfig) throws IOException, InterruptedException {
        return write(directory, lib, store, messageBudget, null, envConfig);
    }

    /**
     * As {@link #write(Path, Path, StoreSetup, String, List)}, with {@code queueWindow} the
     * {@code <memory queueWindow>} value (null: the broker's default).
     */
    public static BrokerFiles write(Path directory, Path lib, StoreSetup store, String messageBudget,
                                    Integer queueWindow, List<String> envConfig)
            throws IOException, InterruptedException {
        String memory = (messageBudget == null || messageBudget.isEmpty() ? "" : " messageBudget=\"" + messageBudget
                + "\"") + (queueWindow == null ? "" : " queueWindow=\"" + queueWindow + "\"");
        String jeParameters = parameterElements("envConfig", envConfig);
        Path etc = Files.createDirectories(directory.resolve("etc"));
        Files.createDirectories(directory.resolve("work"));
        Files.writeString(etc.resolve("broker.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- Written by the perftests harness. -->
                <broker>
                  <listeners>
                    <listener name="amqp" host="127.0.0.1" port="0"/>
                  </listeners>
                  <security usersFile="users" anonymous="false"/>
                  <limits maxFrameSize="256KiB" maxMessageSize="100MiB" idleTimeout="60s" maxConnections="10000" linkCredit="500"/>
                  <warmUp duration="${tandem.warmUp:-0}"/>
                %s
                  <virtualHosts default="%s">
                    <virtualHost name="%s" file="vhost.xml"/>
                  </virtualHosts>
                </broker>
                """.formatted(memory.isEmpty() ? "" : "  <memory" + memory + "/>", VIRTUAL_HOST, VIRTUAL_HOST));
        Files.writeString(etc.resolve("vhost.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- Written by the perftests harness: store setup '%s'. -->
                <virtualHost name="%s">
                  <store type="bdb">
                    <storePath>%s/store</storePath>
                    <durability>%s</durability>
                    <coalescingSync>%s</coalescingSync>
                %s  </store>
                  <queues autoCreate="true">
                    <defaults durable="true" maxDepthMessages="0" maxDepthBytes="0" messageTtl="0" maxDeliveries="10"
                              deadLetterQueue="DLQ"/>
                    <queue name="DLQ"/>
                  </queues>
                </virtualHost>
                """.formatted(store.name(), VIRTUAL_HOST, VIRTUAL_HOST, store.durability(), store.coalescingSync(),
                jeParameters));
        Files.writeString(etc.resolve("logback.xml"), """
                <configuration scan="false">
                  <contextListener class="ch.qos.logback.classic.jul.LevelChangePropagator">
                    <resetJUL>true</resetJUL>
                  </contextListener>
                  <appender name="CONSOLE" class="ch.qos.logback.core.ConsoleAppender">
                    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
                  </appender>
                  <logger name="com.sleepycat" level="WARN"/>
                  <root level="INFO"><appender-ref ref="CONSOLE"/></root>
                </configuration>
                """);
        byte[] secret = new byte[18];
        new SecureRandom().nextBytes(secret);
        String password = Base64.getUrlEncoder().encodeToString(secret);
        addUser(lib, etc.resolve("users"), password);
        return new BrokerFiles(directory, password);
    }

    /**
     * JE parameters as a store's {@code <envConfig>} or {@code <repConfig>} elements ({@code element}), one line
     * each: {@code <envConfig><name>NAME</name><value>VALUE</value></envConfig>}.
     *
     * @param pairs {@code NAME=VALUE} each
     * @throws IllegalArgumentException for a pair without a name or an {@code =}
     */
    static String parameterElements(String element, List<String> pairs) {
        StringBuilder elements = new StringBuilder();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("a JE parameter must read NAME=VALUE, not '" + pair + "'");
            }
            elements.append("    <").append(element).append("><name>").append(pair, 0, eq).append("</name><value>")
                    .append(pair.substring(eq + 1)).append("</value></").append(element).append(">\n");
        }
        return elements.toString();
    }

    /** {@code UserAdmin add FILE perf}, the password as the first line of its standard input. */
    private static void addUser(Path lib, Path usersFile, String password) throws IOException, InterruptedException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", lib.toAbsolutePath() + "/*", "org.tandembroker.tools.passwd.UserAdmin",
                "add", usersFile.toString(), USER);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (OutputStream in = process.getOutputStream()) {
            in.write((password + "\n").getBytes(StandardCharsets.UTF_8));
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("UserAdmin did not finish within 60 s");
        }
        if (process.exitValue() != 0) {
            throw new IOException("UserAdmin add failed (exit " + process.exitValue() + "): " + output.strip());
        }
    }

    public Path directory() {
        return directory;
    }

    public Path brokerFile() {
        return directory.resolve("etc/broker.xml");
    }

    public Path logbackFile() {
        return directory.resolve("etc/logback.xml");
    }

    public Path work() {
        return directory.resolve("work");
    }

    public String user() {
        return USER;
    }

    public String password() {
        return password;
    }
}
