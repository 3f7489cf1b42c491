package org.tandembroker.core.selector;

/** A selector that is not valid JMS selector syntax, or mixes types; the message says what and where. */
public final class SelectorException extends Exception {
    public SelectorException(String message) {
        super(message);
    }
}
