package org.tandembroker.tools.create;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.tandembroker.core.security.ManagementRole;
import org.tandembroker.core.security.PasswordHash;
import org.tandembroker.core.security.UserAccount;
import org.tandembroker.core.security.UsersFile;

/**
 * The text of a node's {@code etc/} files. They are the installation's own {@code etc/} files (packaged into this
 * module at build time), with the values of {@link NodeSettings} put in their place, so that a created node carries
 * the same comments: with the default options the files are exactly the shipped ones. A line of the shipped files
 * that this class edits and cannot find is an {@link IllegalStateException} (a test keeps them in step).
 *
 * <p>Stateless.
 */
final class NodeFiles {
    static final String BROKER = "broker.xml";
    static final String VIRTUAL_HOST = "vhosts/default.xml";
    static final String USERS = "users";
    static final String LOGBACK = "logback.xml";
    static final String PERMISSIONS = "permissions";
    /** Every file, in the order they are written, by path relative to {@code etc/}. */
    static final String[] ALL = {BROKER, VIRTUAL_HOST, USERS, PERMISSIONS, LOGBACK};

    private static final String SHIPPED = "etc/";
    private static final Pattern STANDALONE_STORE = Pattern.compile("(?s)  <store type=\"bdb\">.*?  </store>\n");

    private NodeFiles() {
    }

    /** Every file of the node's {@code etc/}, by path relative to it. */
    static Map<String, String> render(NodeSettings node) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put(BROKER, broker(node));
        files.put(VIRTUAL_HOST, virtualHost(node));
        files.put(USERS, users(node));
        files.put(PERMISSIONS, permissions(node));
        files.put(LOGBACK, shipped(LOGBACK));
        return files;
    }

    static String broker(NodeSettings node) {
        String text = shipped(BROKER);
        text = replaceOnce(text, "<listeners>", node.advertisedAddress()
                .map(a -> "<listeners advertisedAddress=\"" + a + "\">").orElse("<listeners>"));
        text = replaceOnce(text, "<listener name=\"amqp\" host=\"0.0.0.0\" port=\"5672\"/>",
                "<listener name=\"amqp\" host=\"" + node.amqp().host() + "\" port=\"" + node.amqp().port() + "\"/>");
        text = replaceOnce(text, "<jmx port=\"9001\"/>", node.jmx().map(j -> j.host().equals("0.0.0.0")
                ? "<jmx port=\"" + j.port() + "\"/>"
                : "<jmx host=\"" + j.host() + "\" port=\"" + j.port() + "\"/>").orElse("<jmx enabled=\"false\"/>"));
        Optional<NodeSettings.HostPort> metrics = node.metrics();
        if (metrics.isPresent()) {
            text = replaceOnce(text, "<!-- <metrics host=\"127.0.0.1\" port=\"9404\"/> -->",
                    "<metrics host=\"" + metrics.get().host() + "\" port=\"" + metrics.get().port() + "\"/>");
        }
        return text;
    }

    static String virtualHost(NodeSettings node) {
        String text = shipped(VIRTUAL_HOST);
        if (!node.replicated()) {
            return replaceOnce(text, "<durability>NO_SYNC</durability>",
                    "<durability>" + node.durability() + "</durability>");
        }
        String store = resource("store-bdb-ha.xml")
                .replace("@GROUP_NAME@", node.groupName())
                .replace("@NODE_NAME@", node.nodeName())
                .replace("@NODE_HOST_PORT@", node.nodeHostPort().orElseThrow().toString())
                .replace("@HELPER_HOST_PORT@", node.helperHostPort())
                .replace("@DURABILITY@", node.durability())
                .replace("@DESIGNATED_PRIMARY@", Boolean.toString(node.designatedPrimary()));
        String replaced = STANDALONE_STORE.matcher(text).replaceFirst(java.util.regex.Matcher.quoteReplacement(store));
        if (replaced.equals(text)) {
            throw new IllegalStateException("the shipped etc/" + VIRTUAL_HOST + " has no <store type=\"bdb\"> block");
        }
        return replaced;
    }

    static String users(NodeSettings node) {
        String text = shipped(USERS);
        if (!node.guest()) {
            text = text.lines().filter(line -> !line.startsWith("guest:"))
                    .collect(java.util.stream.Collectors.joining("\n", "", "\n"));
        }
        if (node.adminUser().isPresent()) {
            UserAccount admin = new UserAccount(node.adminUser().get(), PasswordHash.create(node.adminPassword()),
                    false, ManagementRole.ADMIN);
            text = text + UsersFile.line(admin) + "\n";
        }
        return text;
    }

    /** The shipped permissions (guest may do everything), and everything for the admin user when there is one. */
    static String permissions(NodeSettings node) {
        String text = shipped(PERMISSIONS);
        if (node.adminUser().isPresent()) {
            text = text + "allow user:" + node.adminUser().get() + " all #\n";
        }
        return text;
    }

    /** A file of the installation's {@code etc/}, as shipped. */
    static String shipped(String path) {
        return resource(SHIPPED + path);
    }

    private static String resource(String name) {
        try (InputStream in = NodeFiles.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name + " next to " + NodeFiles.class.getName()
                        + " (broker-tools packages the installation's etc/)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read resource " + name, e);
        }
    }

    private static String replaceOnce(String text, String target, String replacement) {
        int at = text.indexOf(target);
        if (at < 0 || text.indexOf(target, at + 1) >= 0) {
            throw new IllegalStateException("the shipped etc/ file no longer has exactly one '" + target
                    + "': update " + NodeFiles.class.getName());
        }
        return text.substring(0, at) + replacement + text.substring(at + target.length());
    }
}
