package org.tandembroker.core.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.ConfigException;

class UsersFileTest {

    /** Cheap hashes: these tests are about the file, not the hashing cost. */
    static final String ALICE = UsersFile.line(new UserAccount("alice",
            PasswordHash.create("alice-pw".toCharArray(), 1000), false));
    static final String BOB = UsersFile.line(new UserAccount("bob",
            PasswordHash.create("bob-pw".toCharArray(), 1000), true));

    @TempDir
    Path dir;

    private Path write(String... lines) throws IOException {
        return Files.write(dir.resolve("users"), List.of(lines));
    }

    private String rejection(Path file) {
        Throwable thrown = catchThrowable(() -> UsersFile.load(file));
        assertThat(thrown).isInstanceOf(ConfigException.class);
        assertThat(thrown.getMessage()).doesNotContain("\n");
        return thrown.getMessage();
    }

    @Test
    void readsUsersSkippingCommentsAndBlankLines() throws Exception {
        UsersFile users = UsersFile.load(write("# users", "", ALICE, "   # indented comment", BOB));

        assertThat(users.users()).extracting(UserAccount::name).containsExactly("alice", "bob");
        assertThat(users.user("alice").orElseThrow().loopbackOnly()).isFalse();
        assertThat(users.user("bob").orElseThrow().loopbackOnly()).isTrue();
        assertThat(users.user("bob").orElseThrow().passwordHash().matches("bob-pw".toCharArray())).isTrue();
        assertThat(users.user("carol")).isEmpty();
    }

    @Test
    void rejectsALineThatIsNotAUserNamingFileAndLine() throws IOException {
        Path file = write("# users", ALICE, "bob:secret");

        assertThat(rejection(file)).contains("users:3:", "not a user line", UsersFile.LINE_FORMAT);
    }

    @Test
    void rejectsAnInvalidHashNamingFileLineAndUser() throws IOException {
        Path file = write("carol:pbkdf2-sha256:20000:AAAA:AAAA");

        assertThat(rejection(file)).contains("users:1:", "user 'carol'", "invalid password hash");
    }

    @Test
    void rejectsAnUnknownOptionListingTheAllowedOne() throws IOException {
        Path file = write(ALICE + ":admin");

        assertThat(rejection(file)).contains("users:1:", "unknown option 'admin'", "allowed: loopback-only");
    }

    @Test
    void readsTheManagementRoleInAnyOrderWithLoopbackOnly() throws Exception {
        UsersFile users = UsersFile.load(write(ALICE + ":role=admin", BOB + ":role=monitor",
                "carol" + ALICE.substring(ALICE.indexOf(':')) + ":role=MONITOR"));

        assertThat(users.user("alice").orElseThrow().managementRole()).isEqualTo(ManagementRole.ADMIN);
        assertThat(users.user("bob").orElseThrow()).extracting(UserAccount::loopbackOnly,
                UserAccount::managementRole).containsExactly(true, ManagementRole.MONITOR);
        assertThat(users.user("carol").orElseThrow().managementRole()).isEqualTo(ManagementRole.MONITOR);
        assertThat(UsersFile.load(write("x" + BOB.substring(3, BOB.lastIndexOf(':')) + ":role=admin:loopback-only"))
                .user("x").orElseThrow()).extracting(UserAccount::loopbackOnly, UserAccount::managementRole)
                .containsExactly(true, ManagementRole.ADMIN);
    }

    @Test
    void aUserWithoutARoleHasNoManagementAccessAndItsLineStaysAsItWas() throws Exception {
        UsersFile users = UsersFile.load(write(ALICE, BOB));

        assertThat(users.users()).extracting(UserAccount::managementRole).containsOnly(ManagementRole.NONE);
        assertThat(UsersFile.line(users.user("bob").orElseThrow())).isEqualTo(BOB);
    }

    @Test
    void aRoleIsWrittenAfterLoopbackOnly() {
        UserAccount ops = new UserAccount("ops", PasswordHash.create("pw".toCharArray(), 1000), true,
                ManagementRole.ADMIN);

        assertThat(UsersFile.line(ops)).startsWith("ops:scram-sha-256:1000:").contains(":scram-sha-512:1000:")
                .endsWith(":loopback-only:role=admin");
    }

    @Test
    void rejectsAnUnknownRoleOrARepeatedOption() throws IOException {
        assertThat(rejection(write(ALICE + ":role=root"))).contains("users:1:", "user 'alice'", "unknown role 'root'",
                "allowed: admin, monitor");
        assertThat(rejection(write(ALICE + ":role=admin:role=monitor"))).contains("users:1:", "twice");
        assertThat(rejection(write(BOB + ":loopback-only"))).contains("users:1:", "twice");
    }

    @Test
    void rejectsAUserDefinedTwiceNamingBothLines() throws IOException {
        Path file = write(ALICE, "# again", ALICE);

        assertThat(rejection(file)).contains("users:3:", "'alice'", "line 1");
    }

    @Test
    void rejectsAMissingFileSayingHowToCreateOne() {
        assertThat(rejection(dir.resolve("nope"))).contains("nope", "not found", "tandem-passwd");
    }

    @Test
    void withUserReplacesThatUsersLineAndKeepsCommentsAndOrder() throws Exception {
        UsersFile users = UsersFile.load(write("# header", ALICE, "# bob below", BOB));
        UserAccount newAlice = new UserAccount("alice", PasswordHash.create("new".toCharArray(), 1000), true);

        users.withUser(newAlice).save();

        List<String> lines = Files.readAllLines(dir.resolve("users"));
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).isEqualTo("# header");
        assertThat(lines.get(1)).startsWith("alice:").endsWith(":loopback-only");
        assertThat(lines.subList(2, 4)).containsExactly("# bob below", BOB);
        assertThat(UsersFile.load(dir.resolve("users")).user("alice").orElseThrow().passwordHash()
                .matches("new".toCharArray())).isTrue();
    }

    @Test
    void withoutUserRemovesOnlyThatUsersLine() throws Exception {
        UsersFile users = UsersFile.load(write("# header", ALICE, BOB));

        assertThat(users.withoutUser("alice").users()).extracting(UserAccount::name).containsExactly("bob");
        assertThat(users.withoutUser("carol")).isSameAs(users);
    }

    @Test
    void aNewFileIsReadableByItsOwnerOnly() throws IOException {
        assumeThat(FileSystems.getDefault().supportedFileAttributeViews()).contains("posix");
        Path file = dir.resolve("new-users");

        UsersFile.empty(file).withUser(new UserAccount("alice", PasswordHash.create("pw".toCharArray(), 1000),
                false)).save();

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }
}
