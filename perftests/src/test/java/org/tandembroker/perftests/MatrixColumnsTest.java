package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Which columns a matrix command line runs: with {@code --variant} every Tandem configuration once per variant,
 * the variants of one set-up side by side in the order given, the peers once; a bad variant is refused before
 * anything starts.
 */
class MatrixColumnsTest {
    @TempDir
    Path temp;

    @Test
    void withoutVariantsTheColumnsAreTheConfigurationsInTheTablesOrder() {
        assertThat(MatrixBenchmark.columns("--configs", "artemis-pair,default,non-ha"))
                .extracting(MatrixConfiguration::id).containsExactly("non-ha", "default", "artemis-pair");
    }

    @Test
    void eachTandemConfigurationRunsOncePerVariantSideBySideAndThePeerOnce() throws Exception {
        Path other = Files.createDirectories(temp.resolve("other-build"));

        List<MatrixConfiguration> columns = MatrixBenchmark.columns("--configs", "non-ha,default,artemis-pair",
                "--broker-jvm-option=-Xmx1g", "--variant", "on=", "--variant",
                "off=-Dtandem.store.prefillLogFiles=false  -Dx=1", "--variant-lib", "off=" + other);

        assertThat(columns).extracting(MatrixConfiguration::id)
                .containsExactly("non-ha@on", "non-ha@off", "default@on", "default@off", "artemis-pair");
        MatrixConfiguration off = columns.get(3);
        assertThat(off.label()).isEqualTo(MatrixConfiguration.DEFAULT.label() + " [off]");
        assertThat(off.setupId()).isEqualTo("default");
        assertThat(off.runs(MatrixConfiguration.DEFAULT)).isTrue();
        assertThat(off.variant().lib()).isEqualTo(other);
        assertThat(off.variant().jvmOptions())
                .containsExactly("-Xmx1g", "-Dtandem.store.prefillLogFiles=false", "-Dx=1");
        assertThat(columns.get(2).variant().jvmOptions()).containsExactly("-Xmx1g");
        assertThat(columns.get(2).variant().lib()).isEqualTo(BrokerProcess.defaultLib());
        assertThat(off.settings()).contains("variant `off`: lib `" + other + "`",
                "-Dtandem.store.prefillLogFiles=false");
        assertThat(off.sameVariant(MatrixConfiguration.NON_HA)).isEqualTo(columns.get(1));
        assertThat(columns.get(4).variant()).isNull();
    }

    @Test
    void aVariantsJeParametersGoToItsStoresTheReplicationOnesToReplicatedNodesOnly() {
        List<MatrixConfiguration> columns = MatrixBenchmark.columns("--configs", "default", "--je", "je.x=1",
                "--variant", "base=", "--variant",
                "big=je.log.fileMax=200000000 -Xmx1g je.rep.feederBatchNs=0 -Dje.notAParameter=1");

        BrokerVariant big = columns.get(1).variant();
        assertThat(big.ownOptions()).containsExactly("-Xmx1g", "-Dje.notAParameter=1");
        assertThat(big.jeParameters()).containsExactly("je.log.fileMax=200000000", "je.rep.feederBatchNs=0");
        assertThat(big.envConfig()).containsExactly("je.log.fileMax=200000000");
        assertThat(big.repConfig()).containsExactly("je.rep.feederBatchNs=0");
        assertThat(big.describe()).endsWith(", JE parameters `je.log.fileMax=200000000 je.rep.feederBatchNs=0`");
        assertThat(columns.get(0).variant().jeParameters()).isEmpty();
    }

    @Test
    void aBadVariantIsRefusedNamingTheOptionAtFault() {
        assertRefused("a variant named twice", "'a' is named twice", "--variant", "a=", "--variant", "a=-Dx=1");
        assertRefused("a malformed pair", "--variant must read NAME=VALUE", "--variant", "-Dx=1");
        assertRefused("a library for no variant", "--variant-lib names 'b', which no --variant defines",
                "--variant", "a=", "--variant-lib", "b=" + temp);
        assertRefused("a library that is not there", "is not a directory", "--variant", "a=", "--variant-lib",
                "a=" + temp.resolve("missing"));
        assertRefused("variants of an external broker", "--variant applies only to the brokers this command starts",
                "--url", "amqp://localhost:5672", "--variant", "a=");
    }

    private static void assertRefused(String what, String message, String... args) {
        assertThatThrownBy(() -> MatrixBenchmark.columns(args)).as(what)
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining(message);
    }
}
