package org.tandembroker.core.config;

import org.tandembroker.core.exchange.ExchangeType;

/** An exchange declared in a virtual host file. */
public record ExchangeConfig(String name, ExchangeType type, boolean durable) {
}
