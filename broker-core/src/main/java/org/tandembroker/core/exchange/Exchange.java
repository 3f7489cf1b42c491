package org.tandembroker.core.exchange;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.tandembroker.core.queue.BrokerQueue;

/**
 * Routes messages to bound queues by routing key. Routing runs on publishers' threads without locks: the binding
 * list is an immutable snapshot replaced on change (bindings change rarely, routing happens per message).
 */
public final class Exchange {
    private final UUID id;
    private final String name;
    private final ExchangeType type;
    private final boolean durable;
    private volatile List<Binding> bindings = List.of();

    public Exchange(UUID id, String name, ExchangeType type, boolean durable) {
        this.id = id;
        this.name = name;
        this.type = type;
        this.durable = durable;
    }

    public UUID id() {
        return id;
    }

    public String name() {
        return name;
    }

    public ExchangeType type() {
        return type;
    }

    public boolean isDurable() {
        return durable;
    }

    public List<Binding> bindings() {
        return bindings;
    }

    /** The queues a message with {@code routingKey} reaches, each once. */
    public List<BrokerQueue> route(String routingKey) {
        List<Binding> snapshot = bindings;
        Set<BrokerQueue> targets = new LinkedHashSet<>();
        for (Binding b : snapshot) {
            boolean match = switch (type) {
                case FANOUT -> true;
                case DIRECT -> b.bindingKey().equals(routingKey == null ? "" : routingKey);
                case TOPIC -> b.pattern().matches(routingKey);
            };
            if (match) {
                targets.add(b.queue());
            }
        }
        return new ArrayList<>(targets);
    }

    public synchronized Optional<Binding> find(BrokerQueue queue, String bindingKey) {
        return bindings.stream().filter(b -> b.queue() == queue && b.bindingKey().equals(bindingKey)).findFirst();
    }

    /** Adds {@code binding} unless its queue is bound with its key already; returns whether it was added. */
    public synchronized boolean bind(Binding binding) {
        if (find(binding.queue(), binding.bindingKey()).isPresent()) {
            return false;
        }
        List<Binding> next = new ArrayList<>(bindings);
        next.add(binding);
        bindings = List.copyOf(next);
        return true;
    }

    /** Removes every binding of {@code queue}; returns them. */
    public synchronized List<Binding> unbindAll(BrokerQueue queue) {
        List<Binding> removed = bindings.stream().filter(b -> b.queue() == queue).toList();
        if (!removed.isEmpty()) {
            List<Binding> next = new ArrayList<>(bindings);
            next.removeAll(removed);
            bindings = List.copyOf(next);
        }
        return removed;
    }
}
