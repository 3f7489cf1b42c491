package org.tandembroker.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.security.UsersFile;

/**
 * The broker file, a virtual host file and the users file under hostile edits: valid files mutated at random
 * (attribute and element values replaced by hostile ones, elements deleted, duplicated, renamed or invented,
 * the text cut, bytes flipped, entities and DTDs, other encodings). Every input either loads or fails with one
 * {@link ConfigException} whose message starts with the path of the file at fault; any other exception type is
 * a bug. Each input is reproducible from the seed and its number (printed on failure).
 *
 * <p>Long profile: {@code -Dconfigfuzz.inputs=100000} (also {@code configfuzz.seed}).
 */
class HostileConfigurationTest {
    private static final long SEED = Long.getLong("configfuzz.seed", 20261124L);
    private static final int INPUTS = Integer.getInteger("configfuzz.inputs", 1000);

    private static final String BROKER_XML = """
            <?xml version="1.0" encoding="UTF-8"?>
            <broker>
              <listeners advertisedAddress="broker1.example.com:5672">
                <listener name="amqp" host="0.0.0.0" port="5672"/>
                <listener name="amqps" host="127.0.0.1" port="5671">
                  <tls keyStore="broker.p12" keyStoreType="PKCS12" keyStorePassword="changeit"/>
                </listener>
              </listeners>
              <security usersFile="users" anonymous="false"/>
              <limits maxFrameSize="256KiB" maxMessageSize="100MiB" idleTimeout="60s" maxConnections="10000" linkCredit="500"/>
              <memory messageBudget="64MiB"/>
              <virtualHosts default="default">
                <virtualHost name="default" file="vhosts/default.xml"/>
                <virtualHost name="second" file="vhosts/second.xml"/>
              </virtualHosts>
              <management>
                <jmx enabled="true" host="0.0.0.0" port="9001" rmiHostname="broker1.example.com"/>
                <metrics enabled="true" host="0.0.0.0" port="9404"/>
                <disk watermark="512MiB" checkInterval="5s"/>
              </management>
            </broker>
            """;
    private static final String VHOST_XML = """
            <?xml version="1.0" encoding="UTF-8"?>
            <virtualHost name="default">
              <store type="bdb-ha">
                <storePath>default/store</storePath>
                <durability>NO_SYNC</durability>
                <coalescingSync>true</coalescingSync>
                <envConfig><name>je.cleaner.threads</name><value>2</value></envConfig>
                <repConfig><name>je.rep.electionsPrimaryRetries</name><value>3</value></repConfig>
              </store>
              <queues autoCreate="true">
                <defaults durable="true" maxDepthMessages="0" maxDepthBytes="0" messageTtl="0" maxDeliveries="10" deadLetterQueue="DLQ"/>
                <queue name="DLQ"/>
                <queue name="orders" maxDepthMessages="100000" maxDepthBytes="1GiB" messageTtl="1h" maxDeliveries="5" deadLetterQueue="orders.dlq"/>
                <queue name="orders.dlq" durable="false"/>
              </queues>
              <exchanges>
                <exchange name="news" type="topic" durable="true"/>
                <exchange name="fan" type="fanout" durable="false"/>
              </exchanges>
              <bindings>
                <binding exchange="news" queue="orders" key="stocks.#"/>
                <binding exchange="fan" queue="DLQ"/>
              </bindings>
            </virtualHost>
            """;
    private static final String SECOND_VHOST_XML = """
            <virtualHost name="second"><store type="memory"/></virtualHost>
            """;
    private static final String USERS = """
            # users
            guest:pbkdf2-sha256:20000:u2wdap+1lNH6BHXJV/VLPQ==:IDTfSGPX/1jcU5nXFPECLZL3va/ltlY3k3zUhr83wb8=:loopback-only
            ops:pbkdf2-sha256:20000:u2wdap+1lNH6BHXJV/VLPQ==:IDTfSGPX/1jcU5nXFPECLZL3va/ltlY3k3zUhr83wb8=:role=admin

            grafana:pbkdf2-sha256:20000:u2wdap+1lNH6BHXJV/VLPQ==:IDTfSGPX/1jcU5nXFPECLZL3va/ltlY3k3zUhr83wb8=:role=monitor:loopback-only
            """;
    private static final String[] HOSTILE_VALUES = {"", " ", "-1", "0", "1", "65536", "2147483647", "2147483648",
            "-2147483649", "9223372036854775807", "9223372036854775808", "99999999999999999999999999", "1e9", "0x10",
            "NaN", "Infinity", "1.5", "true", "TRUE", "yes", "1GiB", "1 GiB", "8EiB", "16EiB", "-1MiB", "1XB", "0s",
            "-5s", "1d", "99999999999d", "1ms", "5 min", "\u0000", "\t5\n", "../../../../etc/passwd", "/", "nul",
            "a".repeat(5000), "\u4e2d\u6587", "\ud83d\ude00", "&amp;", "&lt;x/&gt;", "&#0;", "&#x110000;", "&#10;",
            "${env.HOME}", "%s%n", "*", "#", "amq.topic", "DLQ", "default", "[::1]:5672", "host:0", "host:",
            ":5672", "[::1", "NO_SYNC", "SYNC,SYNC,ALL", "bdb", "memory", "unknown"};
    private static final Pattern ATTRIBUTE_VALUE = Pattern.compile("=\"([^\"]*)\"");
    private static final Pattern TEXT_VALUE = Pattern.compile(">([^<]+)<");

    @TempDir
    Path dir;

    private int loaded;
    private int refused;
    private final List<String> wrong = new ArrayList<>();

    @Test
    void hostileBrokerAndVirtualHostFilesLoadOrGiveOneErrorNamingTheFile() throws IOException {
        Path etc = Files.createDirectories(dir.resolve("etc"));
        Files.createDirectories(etc.resolve("vhosts"));
        Files.writeString(etc.resolve("broker.p12"), "not really a key store");
        Files.writeString(etc.resolve("users"), USERS);
        Files.writeString(etc.resolve("vhosts/second.xml"), SECOND_VHOST_XML);
        Path brokerXml = etc.resolve("broker.xml");
        Path vhostXml = etc.resolve("vhosts/default.xml");
        for (int i = 0; i < INPUTS; i++) {
            Random random = new Random(SEED * 31 + i);
            boolean brokerFile = random.nextBoolean();
            Files.write(brokerXml, brokerFile ? mutate(BROKER_XML, random) : BROKER_XML.getBytes(StandardCharsets.UTF_8));
            Files.write(vhostXml, brokerFile ? VHOST_XML.getBytes(StandardCharsets.UTF_8) : mutate(VHOST_XML, random));
            expectLoadOrOneError(i, () -> BrokerConfigLoader.load(brokerXml), brokerXml, vhostXml, etc.resolve("vhosts/second.xml"),
                    etc.resolve("users"), etc.resolve("broker.p12"));
            if (!brokerFile) {
                expectLoadOrOneError(i, () -> VirtualHostConfigLoader.load(vhostXml), vhostXml);
            }
        }
        System.out.printf("hostile configuration: seed %d, %d inputs: %d loaded, %d refused%n", SEED, INPUTS, loaded, refused);
        assertThat(wrong).as("inputs that failed other than with one ConfigException naming the file").isEmpty();
        assertThat(refused).as("mutations that broke the files").isGreaterThan(INPUTS / 2);
        assertThat(loaded).as("mutations the loader accepted (harmless ones exist)").isPositive();
    }

    @Test
    void hostileUsersFilesLoadOrGiveOneErrorNamingTheFile() throws IOException {
        Path users = dir.resolve("users");
        for (int i = 0; i < INPUTS; i++) {
            Random random = new Random(SEED * 17 + i);
            Files.write(users, mutateLines(USERS, random));
            expectLoadOrOneError(i, () -> UsersFile.load(users), users);
        }
        System.out.printf("hostile users files: seed %d, %d inputs: %d loaded, %d refused%n", SEED, INPUTS, loaded, refused);
        assertThat(wrong).as("inputs that failed other than with one ConfigException naming the file").isEmpty();
        assertThat(refused).isGreaterThan(INPUTS / 4);
        assertThat(loaded).isPositive();
    }

    private interface Load {
        Object run() throws ConfigException;
    }

    private void expectLoadOrOneError(int index, Load load, Path... files) {
        try {
            load.run();
            loaded++;
        } catch (ConfigException e) {
            String message = String.valueOf(e.getMessage());
            boolean namesFile = false;
            for (Path file : files) {
                namesFile |= message.startsWith(file.toAbsolutePath().normalize().toString()) || message.startsWith(file.toString());
            }
            // a file attribute edited to another path (virtualHost@file="../../etc/passwd") makes that path the file
            // at fault: an absolute path then ':' names it
            namesFile |= message.matches("(?s)/[^:\\n]+:.*");
            if (namesFile) {
                refused++;
            } else {
                wrong.add("seed " + SEED + " input " + index + ": the error names no file: " + message);
            }
        } catch (Throwable t) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            wrong.add("seed " + SEED + " input " + index + ": " + trace);
        }
    }

    /** Applies one to three hostile edits to an XML document. */
    private static byte[] mutate(String xml, Random random) {
        String text = xml;
        int edits = 1 + random.nextInt(3);
        for (int e = 0; e < edits; e++) {
            text = switch (random.nextInt(12)) {
                case 0, 1, 2 -> replaceOne(text, ATTRIBUTE_VALUE, "=\"" + escapeAttribute(hostile(random)) + "\"", random);
                case 3 -> replaceOne(text, TEXT_VALUE, ">" + escapeText(hostile(random)) + "<", random);
                case 4 -> editLines(text, random, 0);
                case 5 -> editLines(text, random, 1);
                case 6 -> editLines(text, random, 2);
                case 7 -> text.isEmpty() ? text : text.substring(0, random.nextInt(text.length())); // cut
                case 8 -> replaceOne(text, Pattern.compile("<(\\w+)"), "<" + pick(random, "x", "listener", "queue",
                        "virtualHost", "tls", "binding", "exchange", "store", "broker", "management") , random);
                case 9 -> replaceOne(text, Pattern.compile(" (\\w+)="), " " + pick(random, "name", "port", "unknown",
                        "file", "type", "durable", "key", "maxDepthBytes", "x:y") + "=", random);
                case 10 -> pick(random,
                        "<?xml version=\"1.0\"?><!DOCTYPE broker [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><broker>&x;</broker>",
                        "<?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]><broker>&b;</broker>",
                        "<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" href=\"/etc/passwd\"/>",
                        text.replaceFirst("<\\?xml[^>]*>", "<?xml version=\"1.0\" encoding=\"UTF-16\"?>"),
                        "\ufeff" + text, text + "<extra/>", "<broker>" + "<a>".repeat(5000));
                default -> flipBytes(text, random);
            };
        }
        if (random.nextInt(20) == 0) { // invalid UTF-8
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > 0) {
                bytes[random.nextInt(bytes.length)] = (byte) (0x80 + random.nextInt(0x80));
            }
            return bytes;
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] mutateLines(String users, Random random) {
        List<String> lines = new ArrayList<>(List.of(users.split("\n", -1)));
        int edits = 1 + random.nextInt(3);
        for (int e = 0; e < edits; e++) {
            int at = random.nextInt(lines.size());
            String line = lines.get(at);
            switch (random.nextInt(8)) {
                case 0 -> { // replace one ':'-separated field
                    String[] fields = line.split(":", -1);
                    fields[random.nextInt(fields.length)] = hostile(random);
                    lines.set(at, String.join(":", fields));
                }
                case 1 -> lines.set(at, line + ":" + pick(random, "loopback-only", "role=admin", "role=", "role=root", "", "x"));
                case 2 -> lines.add(at, line); // a duplicate user
                case 3 -> lines.remove(at);
                case 4 -> lines.set(at, line.substring(0, random.nextInt(line.length() + 1)));
                case 5 -> lines.set(at, flipBytes(line, random));
                case 6 -> lines.set(at, line.replace("20000", pick(random, "0", "-1", "1", "99999999999", "2147483647", "abc")));
                default -> lines.set(at, line.replace("==", pick(random, "", "=", "===", "!!", "\u00e9")));
            }
        }
        byte[] bytes = String.join(random.nextInt(10) == 0 ? "\r\n" : "\n", lines).getBytes(StandardCharsets.UTF_8);
        if (random.nextInt(20) == 0 && bytes.length > 0) {
            bytes[random.nextInt(bytes.length)] = (byte) 0xff; // invalid UTF-8
        }
        return bytes;
    }

    private static String replaceOne(String text, Pattern pattern, String replacement, Random random) {
        List<int[]> matches = new ArrayList<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            matches.add(new int[]{m.start(), m.end()});
        }
        if (matches.isEmpty()) {
            return text;
        }
        int[] chosen = matches.get(random.nextInt(matches.size()));
        return text.substring(0, chosen[0]) + replacement + text.substring(chosen[1]);
    }

    private static String editLines(String text, Random random, int how) {
        List<String> lines = new ArrayList<>(List.of(text.split("\n")));
        int at = random.nextInt(lines.size());
        switch (how) {
            case 0 -> lines.remove(at);
            case 1 -> lines.add(at, lines.get(at));
            default -> lines.add(at, pick(random, "<unknown/>", "<queue/>", "<listener name=\"x\" port=\"1\"/>",
                    "<virtualHost name=\"default\" file=\"vhosts/default.xml\"/>", "<!-- -->", "<![CDATA[ x ]]>",
                    "<queue name=\"q\" deadLetterQueue=\"q\"/>", "<binding exchange=\"nope\" queue=\"nope\"/>",
                    "text", "<tls/>", "<jmx port=\"9404\"/>", "<envConfig><name/><value/></envConfig>"));
        }
        return String.join("\n", lines);
    }

    private static String flipBytes(String text, Random random) {
        if (text.isEmpty()) {
            return text;
        }
        char[] chars = text.toCharArray();
        int flips = 1 + random.nextInt(3);
        for (int i = 0; i < flips; i++) {
            chars[random.nextInt(chars.length)] = pick(random, "<", ">", "&", "\"", "'", "\u0000", "]", "/", "=", ":",
                    "\u00ff", " ").charAt(0);
        }
        return new String(chars);
    }

    private static String hostile(Random random) {
        return HOSTILE_VALUES[random.nextInt(HOSTILE_VALUES.length)];
    }

    private static String escapeAttribute(String value) {
        return random01(value) ? value : value.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    }

    private static String escapeText(String value) {
        return random01(value) ? value : value.replace("&", "&amp;").replace("<", "&lt;");
    }

    /** Values that are entity references on purpose stay raw; the others are escaped to stay well-formed. */
    private static boolean random01(String value) {
        return value.startsWith("&");
    }

    @SafeVarargs
    private static <T> T pick(Random random, T... choices) {
        return choices[random.nextInt(choices.length)];
    }
}
