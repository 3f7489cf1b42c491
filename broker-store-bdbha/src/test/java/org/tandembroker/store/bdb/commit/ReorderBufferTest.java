package org.tandembroker.store.bdb.commit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Outcomes that finish in any order are released in submission order. */
class ReorderBufferTest {
    private final ReorderBuffer<String> buffer = new ReorderBuffer<>();
    private final List<String> released = new ArrayList<>();

    @Test
    void sequenceNumbersFollowSubmissionOrderFromZero() {
        assertThat(List.of(buffer.nextSequence(), buffer.nextSequence(), buffer.nextSequence()))
                .containsExactly(0L, 1L, 2L);
    }

    @Test
    void outOfOrderCompletionsAreReleasedInSubmissionOrder() {
        long first = buffer.nextSequence();
        long second = buffer.nextSequence();
        long third = buffer.nextSequence();
        long fourth = buffer.nextSequence();

        buffer.finished(third, "third");
        buffer.finished(fourth, "fourth");
        buffer.releaseInOrder(released::add);
        assertThat(released).as("nothing before the first has finished").isEmpty();

        buffer.finished(first, "first");
        buffer.releaseInOrder(released::add);
        assertThat(released).as("the second still holds back the third and fourth").containsExactly("first");

        buffer.finished(second, "second");
        buffer.releaseInOrder(released::add);
        assertThat(released).containsExactly("first", "second", "third", "fourth");
    }

    @Test
    void anOutcomeIsReleasedOnce() {
        buffer.finished(buffer.nextSequence(), "only");
        buffer.releaseInOrder(released::add);
        buffer.releaseInOrder(released::add);
        buffer.releaseRemaining(released::add);

        assertThat(released).containsExactly("only");
    }

    @Test
    void closingReleasesWhatIsHeldInOrderDespiteGaps() {
        long first = buffer.nextSequence();
        long failedByClose = buffer.nextSequence();
        long third = buffer.nextSequence();
        long fourth = buffer.nextSequence();
        buffer.finished(fourth, "fourth");
        buffer.finished(first, "first");
        buffer.finished(third, "third");
        buffer.releaseInOrder(released::add);
        assertThat(released).containsExactly("first");
        assertThat(failedByClose).isEqualTo(1);

        buffer.releaseRemaining(released::add);

        assertThat(released).containsExactly("first", "third", "fourth");
    }
}
