package org.tandembroker.core.exchange;

import java.util.regex.Pattern;

/**
 * A topic binding key: dot-separated words where {@code *} matches exactly one word and {@code #} matches zero or
 * more words. Immutable.
 */
public final class TopicPattern {
    private static final Pattern DOT = Pattern.compile("\\.");
    private final String[] words;

    public TopicPattern(String bindingKey) {
        this.words = bindingKey.isEmpty() ? new String[0] : DOT.split(bindingKey, -1);
    }

    public boolean matches(String routingKey) {
        String[] key = routingKey == null || routingKey.isEmpty() ? new String[0] : DOT.split(routingKey, -1);
        return matches(0, key, 0);
    }

    private boolean matches(int p, String[] key, int k) {
        while (p < words.length) {
            String word = words[p];
            if (word.equals("#")) {
                if (p == words.length - 1) {
                    return true;
                }
                for (int skip = k; skip <= key.length; skip++) {
                    if (matches(p + 1, key, skip)) {
                        return true;
                    }
                }
                return false;
            }
            if (k >= key.length || !(word.equals("*") || word.equals(key[k]))) {
                return false;
            }
            p++;
            k++;
        }
        return k == key.length;
    }
}
