package org.tandembroker.core.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TopicPatternTest {

    @Test
    void starMatchesExactlyOneWord() {
        TopicPattern p = new TopicPattern("stocks.*.nyse");
        assertThat(p.matches("stocks.ibm.nyse")).isTrue();
        assertThat(p.matches("stocks.nyse")).isFalse();
        assertThat(p.matches("stocks.ibm.x.nyse")).isFalse();
    }

    @Test
    void hashMatchesZeroOrMoreWords() {
        TopicPattern p = new TopicPattern("stocks.#");
        assertThat(p.matches("stocks")).isTrue();
        assertThat(p.matches("stocks.ibm")).isTrue();
        assertThat(p.matches("stocks.ibm.nyse")).isTrue();
        assertThat(p.matches("bonds.ibm")).isFalse();
        assertThat(new TopicPattern("#.nyse").matches("stocks.ibm.nyse")).isTrue();
        assertThat(new TopicPattern("a.#.z").matches("a.z")).isTrue();
        assertThat(new TopicPattern("a.#.z").matches("a.b.c.z")).isTrue();
        assertThat(new TopicPattern("a.#.z").matches("a.b.c")).isFalse();
    }

    @Test
    void literalKeysMatchOnlyThemselves() {
        assertThat(new TopicPattern("a.b").matches("a.b")).isTrue();
        assertThat(new TopicPattern("a.b").matches("a.bc")).isFalse();
        assertThat(new TopicPattern("").matches("")).isTrue();
        assertThat(new TopicPattern("").matches(null)).isTrue();
        assertThat(new TopicPattern("#").matches(null)).isTrue();
    }
}
