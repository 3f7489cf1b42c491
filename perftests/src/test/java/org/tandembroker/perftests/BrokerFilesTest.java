package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BrokerFilesTest {

    @Test
    void eachJeParameterBecomesOneElementOfTheStoreWithItsNameAndValue() {
        String elements = BrokerFiles.parameterElements("envConfig",
                List.of("je.log.fileMax=100000000", "je.cleaner.threads=2"));

        assertThat(elements.lines()).containsExactly(
                "    <envConfig><name>je.log.fileMax</name><value>100000000</value></envConfig>",
                "    <envConfig><name>je.cleaner.threads</name><value>2</value></envConfig>");
        assertThat(BrokerFiles.parameterElements("repConfig", List.of("je.rep.feederBatchNs=0")))
                .isEqualTo("    <repConfig><name>je.rep.feederBatchNs</name><value>0</value></repConfig>\n");
        assertThat(BrokerFiles.parameterElements("envConfig", List.of())).isEmpty();
    }

    @Test
    void aValueMayHoldAnEqualsSignButAParameterNeedsANameAndOne() {
        assertThat(BrokerFiles.parameterElements("envConfig", List.of("je.x=a=b")))
                .contains("<name>je.x</name><value>a=b</value>");
        assertThatThrownBy(() -> BrokerFiles.parameterElements("envConfig", List.of("je.log.fileMax")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NAME=VALUE")
                .hasMessageContaining("'je.log.fileMax'");
        assertThatThrownBy(() -> BrokerFiles.parameterElements("repConfig", List.of("=1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'=1'");
    }
}
