package org.tandembroker.core.selector;

/**
 * The values a selector's identifiers take for one message: message headers under their JMS names and application
 * properties under their own. An implementation answers on the thread that evaluates the selector.
 */
public interface SelectorContext {

    /**
     * The value of {@code identifier}, or null when the message has none. Values are a {@link String}, a
     * {@link Boolean}, or a {@link Number} (Byte, Short, Integer, Long, Float or Double); anything else counts as
     * absent.
     */
    Object value(String identifier);
}
