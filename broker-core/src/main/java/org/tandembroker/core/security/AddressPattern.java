package org.tandembroker.core.security;

import java.util.List;
import java.util.regex.Pattern;

/**
 * An address pattern of the permissions file, with AMQP topic wildcards: an address is a sequence of words
 * separated by {@code .} or {@code /}; in a pattern, a word {@code *} matches exactly one word and a word
 * {@code #} matches zero or more words. {@code orders.*} matches {@code orders.eu} but not {@code orders} or
 * {@code orders.eu.paris}; {@code orders.#} matches all three; {@code #} matches every address; {@code amq.topic/#}
 * matches every routing key sent to exchange {@code amq.topic}. Anything else is compared literally, case
 * sensitively. {@code .} and {@code /} are both separators, so {@code orders/eu} and {@code orders.eu} match the
 * same patterns.
 * <p>Immutable and thread-safe.
 */
public final class AddressPattern {
    private static final Pattern SEPARATOR = Pattern.compile("[./]");
    public static final String RULE = "words separated by '.' or '/', where the word '*' matches one word and "
            + "'#' zero or more, e.g. orders.*, orders.#, #";

    private final String text;
    private final List<String> words;

    private AddressPattern(String text, List<String> words) {
        this.text = text;
        this.words = words;
    }

    /**
     * @throws IllegalArgumentException saying what is wrong: an empty word, or {@code *} or {@code #} inside a word
     */
    public static AddressPattern parse(String text) {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("empty pattern");
        }
        List<String> words = List.of(SEPARATOR.split(text, -1));
        for (String word : words) {
            if (word.isEmpty()) {
                throw new IllegalArgumentException("empty word");
            }
            if (word.length() > 1 && (word.contains("*") || word.contains("#"))) {
                throw new IllegalArgumentException("'*' and '#' must be whole words");
            }
        }
        return new AddressPattern(text, words);
    }

    public boolean matches(String address) {
        if (address == null) {
            return false;
        }
        return matches(0, List.of(SEPARATOR.split(address, -1)), 0);
    }

    private boolean matches(int p, List<String> address, int a) {
        while (p < words.size()) {
            String word = words.get(p);
            if (word.equals("#")) {
                if (p == words.size() - 1) {
                    return true;
                }
                for (int skip = a; skip <= address.size(); skip++) {
                    if (matches(p + 1, address, skip)) {
                        return true;
                    }
                }
                return false;
            }
            if (a >= address.size() || !(word.equals("*") || word.equals(address.get(a)))) {
                return false;
            }
            p++;
            a++;
        }
        return a == address.size();
    }

    @Override
    public String toString() {
        return text;
    }
}
