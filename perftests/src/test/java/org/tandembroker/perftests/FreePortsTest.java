package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

class FreePortsTest {

    @Test
    void aPortTheKernelOffersAgainIsSkippedSoTwoNodesNeverShareOne() throws IOException {
        Iterator<Integer> offered = List.of(45565, 45565, 45566, 45565, 45567).iterator();
        FreePorts ports = new FreePorts(offered::next);

        assertThat(List.of(ports.take(), ports.take(), ports.take())).containsExactly(45565, 45566, 45567);
    }

    @Test
    void aSourceThatOffersOnlyPortsHandedOutAlreadyEndsInAClearError() throws IOException {
        FreePorts ports = new FreePorts(() -> 45565);
        ports.take();

        assertThatThrownBy(ports::take).isInstanceOf(IOException.class).hasMessageContaining("not handed out before");
    }

    @Test
    void theSharedPortsAreDistinctAndFreeOnLoopback() throws IOException {
        List<Integer> handed = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            handed.add(FreePorts.next());
        }

        assertThat(handed).doesNotHaveDuplicates().allMatch(port -> port > 0 && port < 65536);
    }
}
