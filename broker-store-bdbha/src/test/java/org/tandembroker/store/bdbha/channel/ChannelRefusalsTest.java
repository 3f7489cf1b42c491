package org.tandembroker.store.bdbha.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When connections that a peer closes without a word become one line for operators. */
class ChannelRefusalsTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final ChannelRefusals refusals = ChannelRefusals.withClock((peer, reason) -> lines.add(peer + " : " + reason),
            now::get);

    @Test
    void aPeerThatKeepsClosingTlsHandshakesIsReportedOnceTheClosesHaveGoneOnForTenSeconds() {
        closeEverySecond(10);
        assertThat(lines).as("ten closes within nine seconds: a peer starting or stopping looks the same").isEmpty();

        closeEverySecond(1);
        assertThat(lines).singleElement().asString()
                .startsWith("to node1:5000 : it closed 3 or more connections in a row during the TLS handshake");

        closeEverySecond(20);
        assertThat(lines).as("the same refusal is not repeated within five minutes").hasSize(1);
    }

    @Test
    void aPeerThatClosedAFewHandshakesWhileItStartedAndThenAnsweredIsNotReported() {
        for (int i = 0; i < 5; i++) {
            refusals.closedWithoutAnswer("node1", "to node1:5000", true); // within a moment, as seen in a group start
        }
        refusals.answered("node1");
        now.addAndGet(ChannelRefusals.SILENT_CLOSES_REPORT_AFTER_MILLIS);
        refusals.closedWithoutAnswer("node1", "to node1:5000", true);
        refusals.closedWithoutAnswer("node1", "to node1:5000", true);

        assertThat(lines).isEmpty();
    }

    @Test
    void longClosesAloneAreNotEnoughWithoutThreeInARow() {
        refusals.closedWithoutAnswer("node1", "to node1:5000", false);
        now.addAndGet(60_000);
        refusals.closedWithoutAnswer("node1", "to node1:5000", false);
        assertThat(lines).isEmpty();

        refusals.closedWithoutAnswer("node1", "to node1:5000", false);
        assertThat(lines).singleElement().asString()
                .contains("it closed 3 or more connections in a row before answering: it probably requires TLS");
    }

    private void closeEverySecond(int closes) {
        for (int i = 0; i < closes; i++) {
            refusals.closedWithoutAnswer("node1", "to node1:5000", true);
            now.addAndGet(1_000);
        }
    }
}
