package org.tandembroker.core.exchange;

/** How an exchange matches a message's routing key against its bindings' keys. */
public enum ExchangeType {
    /** Routing key equals binding key. */
    DIRECT,
    /** Dot-separated words; {@code *} matches one word, {@code #} zero or more. */
    TOPIC,
    /** Every bound queue, whatever the key. */
    FANOUT
}
