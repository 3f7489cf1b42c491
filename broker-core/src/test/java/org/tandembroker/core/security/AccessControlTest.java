package org.tandembroker.core.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.oplog.OperationalLog;

class AccessControlTest {
    @TempDir
    Path dir;

    private final List<String> log = new CopyOnWriteArrayList<>();

    private AccessControl load(String... lines) throws Exception {
        Path file = dir.resolve("permissions");
        Files.write(file, List.of(lines));
        OperationalLog operationalLog = new OperationalLog();
        operationalLog.addObserver(log::add);
        return AccessControl.load(file, operationalLog, new SecurityStatistics());
    }

    @Test
    void aReloadPutsTheNewRulesInForceAndChangesTheVersion() throws Exception {
        AccessControl control = load("allow user:app send orders.#");
        ClientAccess app = control.forClient("app", "/10.0.0.1:5000 (app)");
        long before = app.version();
        Files.write(dir.resolve("permissions"), List.of("allow user:app consume orders.#"));

        String answer = control.reload();

        assertThat(answer).startsWith("reloaded");
        assertThat(app.version()).isNotEqualTo(before);
        assertThat(app.allows(Permission.SEND, "orders.eu")).isFalse();
        assertThat(app.allows(Permission.CONSUME, "orders.eu")).isTrue();
        assertThat(log).anyMatch(l -> l.contains("SEC-1002"));
    }

    @Test
    void aReloadWithMistakesKeepsThePreviousRulesAndSaysWhy() throws Exception {
        AccessControl control = load("allow user:app send orders.#");
        Files.write(dir.resolve("permissions"), List.of("allow user:app sendd orders.#"));

        String answer = control.reload();

        assertThat(answer).contains("kept the previous rules", "unknown permission 'sendd'", "permissions:1");
        assertThat(control.allows("app", Permission.SEND, "orders.eu")).isTrue();
        assertThat(log).anyMatch(l -> l.contains("SEC-1003") && l.contains("sendd"));
    }

    @Test
    void aDenialNamesTheAddressAndPermissionAndIsLoggedAndCounted() throws Exception {
        AccessControl control = load("allow user:app send orders.#");

        assertThatThrownBy(() -> control.forClient("app", "/10.0.0.1:5000 (app)").require(Permission.CONSUME,
                "orders.eu"))
                .isInstanceOf(BrokerException.class)
                .hasMessageContaining("'consume'").hasMessageContaining("'orders.eu'")
                .extracting(e -> ((BrokerException) e).kind()).isEqualTo(ErrorKind.UNAUTHORIZED_ACCESS);
        assertThat(control.statistics().denials(Permission.CONSUME)).isEqualTo(1);
        assertThat(log).anyMatch(l -> l.startsWith("SEC-1001") && l.contains("/10.0.0.1:5000 (app)"));
    }
}
