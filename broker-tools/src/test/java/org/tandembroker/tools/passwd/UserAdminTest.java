package org.tandembroker.tools.passwd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.security.ManagementRole;
import org.tandembroker.core.security.PasswordHash;
import org.tandembroker.core.security.ScramMechanism;
import org.tandembroker.core.security.UserAccount;
import org.tandembroker.core.security.UsersFile;

class UserAdminTest {
    /** Users-file lines with cheap hashes: these tests are about the command, not the hashing cost. */
    private static final String ALICE = UsersFile.line(new UserAccount("alice",
            PasswordHash.create("alice-pw".toCharArray(), 1000), false));
    private static final String BOB = UsersFile.line(new UserAccount("bob",
            PasswordHash.create("bob-pw".toCharArray(), 1000), true));

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** Runs the command with {@code stdin} as standard input (not a terminal). */
    private int run(String stdin, String... args) {
        UserAdmin admin = new UserAdmin(
                UserAdmin.PasswordSource.firstLine(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8))),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return admin.run(args);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private Path usersFile() {
        return dir.resolve("users");
    }

    private UsersFile users() throws ConfigException {
        return UsersFile.load(usersFile());
    }

    @Test
    void addCreatesTheFileWithTheUserWhosePasswordIsTheFirstLineOfStdin() throws ConfigException {
        int exit = run("s3cret\nignored\n", "add", usersFile().toString(), "alice");

        assertThat(exit).isZero();
        assertThat(out()).contains("Added user 'alice'");
        UserAccount alice = users().user("alice").orElseThrow();
        assertThat(alice.passwordHash().matches("s3cret".toCharArray())).isTrue();
        assertThat(alice.loopbackOnly()).isFalse();
    }

    @Test
    void addMigratesAPlainOnlyEntryToScramCredentialsAndListShowsWhichUsersStillNeedIt() throws Exception {
        String legacy = UsersFile.line(new UserAccount("old", PasswordHash.createLegacy("old-pw".toCharArray(), 1000),
                false));
        Files.write(usersFile(), List.of("# users", legacy, ALICE));

        assertThat(run("", "list", usersFile().toString())).isZero();
        assertThat(out()).contains("old (pbkdf2-sha256, PLAIN only: run add with the password to migrate)")
                .doesNotContain("alice (");
        assertThat(run("old-pw\n", "add", usersFile().toString(), "old")).isZero();

        PasswordHash migrated = users().user("old").orElseThrow().passwordHash();
        assertThat(migrated.plainOnly()).isFalse();
        assertThat(migrated.scram(ScramMechanism.SHA_256)).isPresent();
        assertThat(migrated.scram(ScramMechanism.SHA_512)).isPresent();
        assertThat(migrated.matches("old-pw".toCharArray())).isTrue();
        assertThat(Files.readAllLines(usersFile()).get(1)).startsWith("old:scram-sha-256:");
    }

    @Test
    void addWithLoopbackOnlyMarksTheUser() throws ConfigException {
        int exit = run("s3cret\n", "add", usersFile().toString(), "ops", "--loopback-only");

        assertThat(exit).isZero();
        assertThat(users().user("ops").orElseThrow().loopbackOnly()).isTrue();
    }

    @Test
    void addWithARoleGivesTheUserJmxAccessAndListShowsIt() throws ConfigException {
        assertThat(run("pw\n", "add", usersFile().toString(), "admin", "--role", "admin")).isZero();
        assertThat(run("pw\n", "add", usersFile().toString(), "watcher", "--role=monitor", "--loopback-only")).isZero();
        out.reset();

        assertThat(users().user("admin").orElseThrow().managementRole()).isEqualTo(ManagementRole.ADMIN);
        assertThat(users().user("watcher").orElseThrow().managementRole()).isEqualTo(ManagementRole.MONITOR);
        assertThat(run("", "list", usersFile().toString())).isZero();
        assertThat(out().lines()).containsExactly("admin (role admin)", "watcher (loopback-only, role monitor)");
    }

    @Test
    void addWithoutARoleTakesAnExistingUsersRoleAway() throws ConfigException {
        run("pw\n", "add", usersFile().toString(), "admin", "--role", "admin");

        assertThat(run("pw2\n", "add", usersFile().toString(), "admin")).isZero();

        assertThat(users().user("admin").orElseThrow().managementRole()).isEqualTo(ManagementRole.NONE);
    }

    @Test
    void anUnknownRoleOrARoleOutsideAddIsAUsageError() {
        assertThat(run("pw\n", "add", usersFile().toString(), "admin", "--role", "root")).isEqualTo(2);
        assertThat(run("", "add", usersFile().toString(), "admin", "--role")).isEqualTo(2);
        assertThat(run("", "list", usersFile().toString(), "--role", "admin")).isEqualTo(2);
        assertThat(err()).contains("--role takes admin or monitor, got 'root'", "--role applies to add only");
        assertThat(Files.exists(usersFile())).isFalse();
    }

    @Test
    void addForAnExistingUserChangesItsPasswordAndKeepsTheFilesComments() throws IOException, ConfigException {
        Files.write(usersFile(), List.of("# keep me", ALICE));

        int exit = run("changed\n", "add", usersFile().toString(), "alice");

        assertThat(exit).isZero();
        assertThat(out()).contains("Changed user 'alice'");
        assertThat(Files.readAllLines(usersFile())).first().isEqualTo("# keep me");
        assertThat(users().users()).hasSize(1);
        assertThat(users().user("alice").orElseThrow().passwordHash().matches("changed".toCharArray())).isTrue();
    }

    @Test
    void listPrintsEachUserWithItsLoopbackOnlyFlag() throws IOException {
        Files.write(usersFile(), List.of(ALICE, BOB));

        int exit = run("", "list", usersFile().toString());

        assertThat(exit).isZero();
        assertThat(out().lines()).containsExactly("alice", "bob (loopback-only)");
    }

    @Test
    void removeDeletesTheUser() throws IOException, ConfigException {
        Files.write(usersFile(), List.of(ALICE, BOB));

        int exit = run("", "remove", usersFile().toString(), "alice");

        assertThat(exit).isZero();
        assertThat(out()).contains("Removed user 'alice'");
        assertThat(users().users()).extracting(UserAccount::name).containsExactly("bob");
    }

    @Test
    void removingAnUnknownUserFailsWithExitCode1() throws IOException {
        Files.write(usersFile(), List.of(ALICE));

        int exit = run("", "remove", usersFile().toString(), "carol");

        assertThat(exit).isEqualTo(1);
        assertThat(err()).contains("no user 'carol'");
    }

    @Test
    void anEmptyPasswordIsRefusedWithExitCode1() {
        assertThat(run("\n", "add", usersFile().toString(), "alice")).isEqualTo(1);
        assertThat(run("", "add", usersFile().toString(), "alice")).isEqualTo(1);
        assertThat(err()).contains("empty password is not allowed");
        assertThat(usersFile()).doesNotExist();
    }

    @Test
    void listingAMissingFileFailsWithExitCode1() {
        int exit = run("", "list", dir.resolve("missing").toString());

        assertThat(exit).isEqualTo(1);
        assertThat(err()).contains("missing", "not found");
    }

    @Test
    void anInvalidUsersFileFailsWithExitCode1NamingTheLine() throws IOException {
        Files.write(usersFile(), List.of("garbage"));

        int exit = run("pw\n", "add", usersFile().toString(), "alice");

        assertThat(exit).isEqualTo(1);
        assertThat(err()).contains("users:1:");
    }

    @Test
    void usageErrorsExitWithCode2AndPrintTheUsage() {
        assertThat(run("")).isEqualTo(2);
        assertThat(run("", "rename", "users", "a")).isEqualTo(2);
        assertThat(run("", "add", "users")).isEqualTo(2);
        assertThat(run("", "list", "users", "--loopback-only")).isEqualTo(2);
        assertThat(run("", "add", "users", "alice", "--admin")).isEqualTo(2);
        assertThat(run("pw\n", "add", usersFile().toString(), "al:ice")).isEqualTo(2);
        assertThat(err()).contains("Usage: tandem-passwd add <usersFile> <name> [--loopback-only]",
                "unknown command 'rename'", "unknown option --admin", "invalid user name 'al:ice'");
    }

    @Test
    void helpPrintsTheUsageAndExitsWithCode0() {
        assertThat(run("", "--help")).isZero();
        assertThat(out()).contains("Usage: tandem-passwd");
    }
}
