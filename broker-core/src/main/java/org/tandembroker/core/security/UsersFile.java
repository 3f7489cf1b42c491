package org.tandembroker.core.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.tandembroker.core.config.ConfigException;

/**
 * The users file ({@code etc/users}): one user per line, {@code name:hash[:loopback-only][:role=admin|monitor]},
 * where {@code hash} is a {@link PasswordHash} (SCRAM credentials {@code scram-sha-256:...:scram-sha-512:...}, or
 * the earlier PLAIN-only {@code pbkdf2-sha256:<iterations>:<salt>:<hash>}) and the options
 * after it may come in any order, each at most once. {@code role=} gives the user a {@link ManagementRole} for
 * JMX; a user without one has no management access. Lines starting with {@code #} and blank lines are comments.
 * A user name appears once.
 * <pre>
 * # the default user, usable from this machine only
 * guest:scram-sha-256:20000:V1m2...==:q8Zx...=:k2Pq...=:scram-sha-512:20000:...:loopback-only
 * # an operator with full JMX access
 * ops:scram-sha-256:20000:Qk4c...==:9dLe...=:...:role=admin
 * </pre>
 * The broker reads it once at startup. {@link UserAdmin} edits it, keeping comments and the order of lines.
 * <p>Immutable and thread-safe; the {@code with...} methods return a changed copy.
 */
public final class UsersFile {

    public static final String LOOPBACK_ONLY = "loopback-only";
    public static final String ROLE_OPTION = "role=";
    public static final String LINE_FORMAT = "name:<password entry written by tandem-passwd: scram-sha-256:..."
            + ":scram-sha-512:... or pbkdf2-sha256:...>[:" + LOOPBACK_ONLY + "][:" + ROLE_OPTION + "admin|monitor]";
    private static final String OPTIONS = LOOPBACK_ONLY + ", " + ROLE_OPTION + "admin, " + ROLE_OPTION + "monitor";

    private final Path file;
    /** Every line of the file; a user's line is replaced by {@link #line(UserAccount)} when it changes. */
    private final List<String> lines;
    private final Map<String, UserAccount> users;
    private final Map<String, Integer> lineOfUser;

    private UsersFile(Path file, List<String> lines, Map<String, UserAccount> users, Map<String, Integer> lineOfUser) {
        this.file = file;
        this.lines = List.copyOf(lines);
        this.users = users;
        this.lineOfUser = lineOfUser;
    }

    /**
     * Reads and validates the file.
     *
     * @throws ConfigException naming the file and line of the first bad line, or that the file is unreadable
     */
    public static UsersFile load(Path file) throws ConfigException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": users file not found (create it with bin/tandem-passwd)", e);
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read users file: " + e, e);
        }
        return parse(file, lines);
    }

    /** A file with no users yet, e.g. before {@link UserAdmin} first creates it. */
    public static UsersFile empty(Path file) {
        return new UsersFile(file, List.of(), Map.of(), Map.of());
    }

    static UsersFile parse(Path file, List<String> lines) throws ConfigException {
        Map<String, UserAccount> users = new LinkedHashMap<>();
        Map<String, Integer> lineOfUser = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String text = lines.get(i).strip();
            if (text.isEmpty() || text.startsWith("#")) {
                continue;
            }
            UserAccount user = parseLine(file, i + 1, text);
            if (users.putIfAbsent(user.name(), user) != null) {
                throw new ConfigException(file + ":" + (i + 1) + ": user '" + user.name() + "' is already defined on"
                        + " line " + (lineOfUser.get(user.name()) + 1) + "; allowed: each user once");
            }
            lineOfUser.put(user.name(), i);
        }
        return new UsersFile(file, lines, users, lineOfUser);
    }

    private static UserAccount parseLine(Path file, int lineNumber, String text) throws ConfigException {
        String where = file + ":" + lineNumber + ": ";
        String[] parts = text.split(":", -1);
        if (parts.length < 2) {
            throw new ConfigException(where + "not a user line; allowed: " + LINE_FORMAT);
        }
        String name = parts[0];
        if (!UserAccount.isValidName(name)) {
            throw new ConfigException(where + "invalid user name '" + name + "'; allowed: " + UserAccount.NAME_RULE);
        }
        int hashFields = PasswordHash.fieldCount(parts, 1);
        if (hashFields == 0) {
            throw new ConfigException(where + "not a user line (no password entry after the name '" + name
                    + "'); allowed: " + LINE_FORMAT);
        }
        PasswordHash hash;
        try {
            hash = PasswordHash.decode(String.join(":", java.util.Arrays.copyOfRange(parts, 1, 1 + hashFields)));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(where + "user '" + name + "' has an invalid password hash (" + e.getMessage()
                    + "); allowed: " + LINE_FORMAT);
        }
        boolean loopbackOnly = false;
        ManagementRole role = null;
        for (int i = 1 + hashFields; i < parts.length; i++) {
            String option = parts[i];
            if (option.equals(LOOPBACK_ONLY) && !loopbackOnly) {
                loopbackOnly = true;
            } else if (option.startsWith(ROLE_OPTION) && role == null) {
                String value = option.substring(ROLE_OPTION.length());
                role = ManagementRole.parse(value).orElseThrow(() -> new ConfigException(where + "user '" + name
                        + "' has unknown role '" + value + "'; allowed: " + ManagementRole.ALLOWED));
            } else if (option.equals(LOOPBACK_ONLY) || option.startsWith(ROLE_OPTION)) {
                throw new ConfigException(where + "user '" + name + "' has option '" + option
                        + "' twice; allowed: each option once");
            } else {
                throw new ConfigException(where + "user '" + name + "' has unknown option '" + option
                        + "'; allowed: " + OPTIONS);
            }
        }
        return new UserAccount(name, hash, loopbackOnly, role == null ? ManagementRole.NONE : role);
    }

    /** The line that stores {@code user}. */
    public static String line(UserAccount user) {
        return user.name() + ":" + user.passwordHash().encode() + (user.loopbackOnly() ? ":" + LOOPBACK_ONLY : "")
                + (user.managementRole() == ManagementRole.NONE ? "" : ":" + ROLE_OPTION
                + user.managementRole().fileName());
    }

    public Path file() {
        return file;
    }

    public Optional<UserAccount> user(String name) {
        return Optional.ofNullable(users.get(name));
    }

    /** The users in file order. */
    public List<UserAccount> users() {
        return List.copyOf(users.values());
    }

    /** A copy with {@code user} added at the end, or replacing the line of the user of that name. */
    public UsersFile withUser(UserAccount user) {
        List<String> newLines = new ArrayList<>(lines);
        Integer existing = lineOfUser.get(user.name());
        if (existing != null) {
            newLines.set(existing, line(user));
        } else {
            newLines.add(line(user));
        }
        return reparse(newLines);
    }

    /** A copy without the named user's line; the same file if there is no such user. */
    public UsersFile withoutUser(String name) {
        Integer existing = lineOfUser.get(name);
        if (existing == null) {
            return this;
        }
        List<String> newLines = new ArrayList<>(lines);
        newLines.remove((int) existing);
        return reparse(newLines);
    }

    /**
     * Writes the file atomically (a temporary file in the same directory, then a rename). A new file is
     * readable by its owner only; an existing file keeps its permissions.
     */
    public void save() throws IOException {
        Path target = file.toAbsolutePath();
        Path dir = target.getParent();
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
        try {
            Files.write(temp, lines, StandardCharsets.UTF_8);
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Set<PosixFilePermission> permissions = Files.exists(target)
                        ? Files.getPosixFilePermissions(target)
                        : PosixFilePermissions.fromString("rw-------");
                Files.setPosixFilePermissions(temp, permissions);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private UsersFile reparse(List<String> newLines) {
        try {
            return parse(file, newLines);
        } catch (ConfigException e) {
            throw new IllegalStateException("a valid users file became invalid: " + e.getMessage(), e);
        }
    }
}
