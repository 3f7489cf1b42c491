package org.tandembroker.tools.passwd;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.security.ManagementRole;
import org.tandembroker.core.security.PasswordHash;
import org.tandembroker.core.security.UserAccount;
import org.tandembroker.core.security.UsersFile;
import org.tandembroker.tools.ToolFailure;

/**
 * Command-line editor of the users file, run by {@code bin/tandem-passwd}:
 * <pre>
 * tandem-passwd add    &lt;usersFile&gt; &lt;name&gt; [--loopback-only] [--role admin|monitor]
 * tandem-passwd remove &lt;usersFile&gt; &lt;name&gt;
 * tandem-passwd list   &lt;usersFile&gt;
 * </pre>
 * {@code add} creates the user, or gives an existing one a new password (and sets its loopback-only flag and its
 * JMX role as given: without {@code --role} the user has no JMX access). It writes SCRAM-SHA-256 and SCRAM-SHA-512
 * credentials, usable with SCRAM and PLAIN; running it for a user whose entry has the earlier PLAIN-only
 * {@code pbkdf2-sha256} form migrates that user. {@code list} marks such users. The password is read from the terminal
 * without echo, twice; when standard input is not a terminal, it is its first line (UTF-8), for scripts. Exit codes
 * ({@link ToolFailure}'s): 0 done, 1 error (file unreadable or invalid, no such user, passwords differ), 2 usage.
 *
 * <p>Its options are GNU long options like every tool's, but parsed here rather than by picocli: the command line
 * is three commands and two options, and its usage text and messages are what operators' scripts already see.
 *
 * <p><b>Threads.</b> The tool's main thread.
 */
public final class UserAdmin {

    static final int OK = ToolFailure.OK;
    static final int ERROR = ToolFailure.REFUSED;
    static final int USAGE = ToolFailure.USAGE;

    private static final String USAGE_TEXT = String.join(System.lineSeparator(),
            "Usage: tandem-passwd add <usersFile> <name> [--loopback-only] [--role admin|monitor]",
            "       tandem-passwd remove <usersFile> <name>",
            "       tandem-passwd list <usersFile>",
            "add creates a user or sets a new password for an existing one; --loopback-only lets the user connect",
            "from this machine only; --role gives JMX access: admin (read, write, operations) or monitor (read",
            "only); without it the user has none. The password is read from the terminal, or as the first line",
            "of standard input when that is not a terminal. add writes SCRAM-SHA-256 and SCRAM-SHA-512 credentials",
            "(usable with SCRAM and PLAIN); a user listed as 'pbkdf2-sha256, PLAIN only' has an entry of the earlier",
            "form: add it again with its password to migrate it. The broker reads the users file at startup:",
            "restart it to apply.");

    /** Where {@code add} gets the new password. */
    @FunctionalInterface
    interface PasswordSource {
        /** The password, or null when none was given; throws with a message for the user on a problem. */
        char[] read(String user) throws IOException;

        static PasswordSource terminal(Console console) {
            return user -> {
                char[] first = console.readPassword("New password for %s: ", user);
                char[] second = first == null ? null : console.readPassword("Repeat the password: ");
                if (first == null || second == null) {
                    return null;
                }
                boolean same = Arrays.equals(first, second);
                Arrays.fill(second, '\0');
                if (!same) {
                    Arrays.fill(first, '\0');
                    throw new IOException("the passwords differ");
                }
                return first;
            };
        }

        static PasswordSource firstLine(InputStream in) {
            return user -> {
                String line = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
                return line == null ? null : line.toCharArray();
            };
        }
    }

    private final PasswordSource passwords;
    private final PrintStream out;
    private final PrintStream err;

    UserAdmin(PasswordSource passwords, PrintStream out, PrintStream err) {
        this.passwords = passwords;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        Console console = System.console();
        PasswordSource passwords = console != null ? PasswordSource.terminal(console)
                : PasswordSource.firstLine(System.in);
        System.exit(new UserAdmin(passwords, System.out, System.err).run(args));
    }

    int run(String... args) {
        List<String> positional = new ArrayList<>();
        boolean loopbackOnly = false;
        ManagementRole role = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("-h") || arg.equals("--help")) {
                out.println(USAGE_TEXT);
                return OK;
            } else if (arg.equals("--loopback-only")) {
                loopbackOnly = true;
            } else if (arg.equals("--role") || arg.startsWith("--role=")) {
                String value = arg.equals("--role") ? (i + 1 < args.length ? args[++i] : "") : arg.substring(7);
                Optional<ManagementRole> parsed = ManagementRole.parse(value);
                if (parsed.isEmpty()) {
                    return usage("--role takes " + ManagementRole.ALLOWED.replace(", ", " or ") + ", got '" + value
                            + "'");
                }
                role = parsed.get();
            } else if (arg.startsWith("-")) {
                return usage("unknown option " + arg);
            } else {
                positional.add(arg);
            }
        }
        if (positional.isEmpty()) {
            return usage("no command given");
        }
        String command = positional.get(0);
        int expected = switch (command) {
            case "add", "remove" -> 3;
            case "list" -> 2;
            default -> -1;
        };
        if (expected < 0) {
            return usage("unknown command '" + command + "'; allowed: add, remove, list");
        }
        if (positional.size() != expected) {
            return usage(command + " takes " + (expected - 1) + " argument" + (expected == 2 ? "" : "s") + ", got "
                    + (positional.size() - 1));
        }
        if (loopbackOnly && !command.equals("add")) {
            return usage("--loopback-only applies to add only");
        }
        if (role != null && !command.equals("add")) {
            return usage("--role applies to add only");
        }
        Path file = Path.of(positional.get(1));
        try {
            return switch (command) {
                case "add" -> add(file, positional.get(2), loopbackOnly, role == null ? ManagementRole.NONE : role);
                case "remove" -> remove(file, positional.get(2));
                default -> list(file);
            };
        } catch (ConfigException e) {
            return error(e.getMessage());
        } catch (IOException e) {
            return error(file + ": " + e.getMessage());
        }
    }

    private int add(Path file, String name, boolean loopbackOnly, ManagementRole role)
            throws ConfigException, IOException {
        if (!UserAccount.isValidName(name)) {
            return usage("invalid user name '" + name + "'; allowed: " + UserAccount.NAME_RULE);
        }
        UsersFile users = Files.exists(file) ? UsersFile.load(file) : UsersFile.empty(file);
        char[] password;
        try {
            password = passwords.read(name);
        } catch (IOException e) {
            return error(e.getMessage());
        }
        if (password == null || password.length == 0) {
            return error("no password given; an empty password is not allowed");
        }
        UserAccount account = new UserAccount(name, PasswordHash.create(password), loopbackOnly, role);
        Arrays.fill(password, '\0');
        boolean existed = users.user(name).isPresent();
        users.withUser(account).save();
        out.println((existed ? "Changed user '" : "Added user '") + name + "'" + describeOptions(account) + " in "
                + file + ". Restart the broker to apply.");
        return OK;
    }

    private int remove(Path file, String name) throws ConfigException, IOException {
        UsersFile users = UsersFile.load(file);
        if (users.user(name).isEmpty()) {
            return error("no user '" + name + "' in " + file);
        }
        users.withoutUser(name).save();
        out.println("Removed user '" + name + "' from " + file + ". Restart the broker to apply.");
        return OK;
    }

    private int list(Path file) throws ConfigException {
        UsersFile users = UsersFile.load(file);
        for (UserAccount user : users.users()) {
            out.println(user.name() + describeOptions(user));
        }
        return OK;
    }

    private static String describeOptions(UserAccount user) {
        List<String> options = new ArrayList<>();
        if (user.passwordHash().plainOnly()) {
            options.add(user.passwordHash().schemes() + ", PLAIN only: run add with the password to migrate");
        }
        if (user.loopbackOnly()) {
            options.add("loopback-only");
        }
        if (user.managementRole() != ManagementRole.NONE) {
            options.add("role " + user.managementRole().fileName());
        }
        return options.isEmpty() ? "" : " (" + String.join(", ", options) + ")";
    }

    private int usage(String problem) {
        err.println("tandem-passwd: " + problem);
        err.println(USAGE_TEXT);
        return USAGE;
    }

    private int error(String message) {
        err.println("tandem-passwd: " + message);
        return ERROR;
    }
}
