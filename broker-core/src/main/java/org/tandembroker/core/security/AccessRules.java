package org.tandembroker.core.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.tandembroker.core.config.ConfigException;

/**
 * The permissions file ({@code etc/permissions}), validated: groups of users, and grants of {@link Permission}s on
 * {@link AddressPattern}s to users, groups or everyone. Whatever no grant allows is denied.
 * <pre>
 * # group NAME MEMBER...
 * group  apps     orders-service billing
 * # allow WHO PERMISSION[,PERMISSION...] PATTERN...     WHO: user:NAME, group:NAME or everyone
 * allow  user:guest      all                  #
 * allow  group:apps      send,consume         orders.# invoices.*
 * allow  everyone        consume              news.#
 * </pre>
 * Words are separated by blanks; {@code #} starts a comment only at the start of a line (it is also the
 * match-everything pattern). Every mistake is reported, one line each: file, line, the bad value and what is
 * allowed.
 * <p>Immutable and thread-safe.
 */
public final class AccessRules {
    static final String GROUP_LINE = "group NAME MEMBER [MEMBER...]";
    static final String ALLOW_LINE = "allow user:NAME|group:NAME|everyone PERMISSION[,PERMISSION...] PATTERN "
            + "[PATTERN...]";
    private static final String EVERYONE = "everyone";

    /** No rules at all: everything denied (used before a file is read). */
    static final AccessRules NONE = new AccessRules(null, Map.of(), List.of());

    /** Who a grant is for. */
    private record Grantee(boolean everyone, String user, String group) {
        boolean includes(String name, Set<String> groupsOfUser) {
            return everyone || name.equals(user) || (group != null && groupsOfUser.contains(group));
        }

        @Override
        public String toString() {
            return everyone ? EVERYONE : user != null ? "user:" + user : "group:" + group;
        }
    }

    private record Grant(Grantee grantee, Set<Permission> permissions, List<AddressPattern> patterns, int line) {
    }

    private final Path file;
    private final Map<String, Set<String>> groupsOfUser;
    private final List<Grant> grants;

    private AccessRules(Path file, Map<String, Set<String>> groupsOfUser, List<Grant> grants) {
        this.file = file;
        this.groupsOfUser = groupsOfUser;
        this.grants = grants;
    }

    /**
     * Reads and validates the file.
     *
     * @throws ConfigException listing every mistake, one line each
     */
    public static AccessRules load(Path file) throws ConfigException {
        try {
            return parse(file, Files.readAllLines(file, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": permissions file not found", e);
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read permissions file: " + e, e);
        }
    }

    static AccessRules parse(Path file, List<String> lines) throws ConfigException {
        List<String> mistakes = new ArrayList<>();
        Map<String, Set<String>> members = new LinkedHashMap<>();
        Map<String, Integer> groupLine = new LinkedHashMap<>();
        List<Grant> grants = new ArrayList<>();
        Map<Integer, String> groupReferences = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            int number = i + 1;
            String where = file + ":" + number + ": ";
            String text = lines.get(i).strip();
            if (text.isEmpty() || text.startsWith("#")) {
                continue;
            }
            String[] words = text.split("\\s+");
            switch (words[0]) {
                case "group" -> {
                    if (words.length < 3) {
                        mistakes.add(where + "'" + text + "' is incomplete; allowed: " + GROUP_LINE);
                        continue;
                    }
                    String name = words[1];
                    if (!UserAccount.isValidName(name)) {
                        mistakes.add(where + "invalid group name '" + name + "'; allowed: " + UserAccount.NAME_RULE);
                        continue;
                    }
                    if (groupLine.containsKey(name)) {
                        mistakes.add(where + "group '" + name + "' is already defined on line " + groupLine.get(name)
                                + "; allowed: each group once");
                        continue;
                    }
                    groupLine.put(name, number);
                    Set<String> users = new LinkedHashSet<>();
                    for (int w = 2; w < words.length; w++) {
                        if (!UserAccount.isValidName(words[w])) {
                            mistakes.add(where + "invalid member '" + words[w] + "' of group '" + name
                                    + "'; allowed: a user name, " + UserAccount.NAME_RULE);
                        } else {
                            users.add(words[w]);
                        }
                    }
                    members.put(name, users);
                }
                case "allow" -> {
                    if (words.length < 4) {
                        mistakes.add(where + "'" + text + "' is incomplete; allowed: " + ALLOW_LINE);
                        continue;
                    }
                    Grantee grantee = grantee(words[1]);
                    if (grantee == null) {
                        mistakes.add(where + "unknown grantee '" + words[1]
                                + "'; allowed: user:NAME, group:NAME, everyone");
                    } else if (grantee.group() != null) {
                        groupReferences.put(number, grantee.group());
                    }
                    Set<Permission> permissions = EnumSet.noneOf(Permission.class);
                    for (String name : words[2].split(",", -1)) {
                        Optional<Set<Permission>> parsed = Permission.parse(name);
                        if (parsed.isEmpty()) {
                            mistakes.add(where + "unknown permission '" + name + "'; allowed: " + Permission.ALLOWED
                                    + " (comma-separated, no blanks)");
                        } else {
                            permissions.addAll(parsed.get());
                        }
                    }
                    List<AddressPattern> patterns = new ArrayList<>();
                    for (int w = 3; w < words.length; w++) {
                        try {
                            patterns.add(AddressPattern.parse(words[w]));
                        } catch (IllegalArgumentException e) {
                            mistakes.add(where + "invalid address pattern '" + words[w] + "' (" + e.getMessage()
                                    + "); allowed: " + AddressPattern.RULE);
                        }
                    }
                    if (grantee != null) {
                        grants.add(new Grant(grantee, permissions, List.copyOf(patterns), number));
                    }
                }
                default -> mistakes.add(where + "unknown line '" + words[0] + "'; allowed: " + GROUP_LINE + ", or "
                        + ALLOW_LINE + ", or a comment starting with '# '");
            }
        }
        groupReferences.forEach((line, group) -> {
            if (!members.containsKey(group)) {
                mistakes.add(file + ":" + line + ": group '" + group + "' is not defined; allowed: a group of a '"
                        + "group' line" + (members.isEmpty() ? " (this file has none)" : ": "
                        + String.join(", ", members.keySet())));
            }
        });
        if (!mistakes.isEmpty()) {
            mistakes.sort(AccessRules::byLine);
            throw new ConfigException(String.join(System.lineSeparator(), mistakes));
        }
        Map<String, Set<String>> groupsOfUser = new LinkedHashMap<>();
        members.forEach((group, users) -> users.forEach(
                user -> groupsOfUser.computeIfAbsent(user, u -> new LinkedHashSet<>()).add(group)));
        groupsOfUser.replaceAll((user, groups) -> Set.copyOf(groups));
        return new AccessRules(file, Map.copyOf(groupsOfUser), List.copyOf(grants));
    }

    private static int byLine(String a, String b) {
        return Integer.compare(lineOf(a), lineOf(b));
    }

    private static int lineOf(String mistake) {
        String[] parts = mistake.split(":", 3);
        try {
            return parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Grantee grantee(String word) {
        if (word.equals(EVERYONE)) {
            return new Grantee(true, null, null);
        }
        if (word.startsWith("user:") && UserAccount.isValidName(word.substring(5))) {
            return new Grantee(false, word.substring(5), null);
        }
        if (word.startsWith("group:") && UserAccount.isValidName(word.substring(6))) {
            return new Grantee(false, null, word.substring(6));
        }
        return null;
    }

    /** Whether some grant gives {@code user} {@code permission} on {@code address}. */
    public boolean allows(String user, Permission permission, String address) {
        Set<String> groups = groupsOfUser.getOrDefault(user, Set.of());
        for (Grant grant : grants) {
            if (grant.permissions().contains(permission) && grant.grantee().includes(user, groups)) {
                for (AddressPattern pattern : grant.patterns()) {
                    if (pattern.matches(address)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** The groups {@code user} belongs to. */
    public Set<String> groupsOf(String user) {
        return groupsOfUser.getOrDefault(user, Set.of());
    }

    public Path file() {
        return file;
    }

    /** For the log: how many grants and groups. */
    public String summary() {
        Set<String> groups = new LinkedHashSet<>();
        groupsOfUser.values().forEach(groups::addAll);
        return grants.size() + " grant(s), " + groups.size() + " group(s) with members";
    }
}
