package org.tandembroker.core.config;

/** A binding declared in a virtual host file: messages routed by {@code exchange} with a matching key reach {@code queue}. */
public record BindingConfig(String exchange, String queue, String bindingKey) {
}
