package org.tandembroker.core.vhost;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.QueueOptions;

/**
 * A queue address with options, in the form ActiveMQ Artemis users know ({@code prices?last-value-key=symbol},
 * {@code prices?last-value=true}), and Tandem's {@code priority=false}: the queue's name and the options a client
 * asks for. Qpid JMS passes the address of {@code session.createQueue(...)} unchanged, so this reaches the options
 * from any client. Immutable.
 *
 * @param name         the queue's name (before the {@code ?})
 * @param priority     the priority order asked for, or null when the address does not say
 * @param lastValueKey the last-value key asked for, or null when the address does not say
 */
record QueueAddress(String name, Boolean priority, String lastValueKey) {
    static final String PRIORITY = "priority";
    static final String LAST_VALUE_KEY = "last-value-key";
    static final String LAST_VALUE = "last-value";
    private static final String ALLOWED = PRIORITY + "=true|false, " + LAST_VALUE_KEY + "=<application property>, "
            + LAST_VALUE + "=true|false";

    /**
     * The options of {@code address}, or empty when it has no {@code ?}.
     *
     * @throws BrokerException INVALID_FIELD for parameters that are not {@code key=value} pairs of the known keys
     */
    static Optional<QueueAddress> parse(String address) {
        int question = address.indexOf('?');
        if (question < 0) {
            return Optional.empty();
        }
        String name = address.substring(0, question);
        if (name.isEmpty()) {
            throw invalid(address, "no queue name before '?'");
        }
        Boolean priority = null;
        String lastValueKey = null;
        for (String parameter : address.substring(question + 1).split("&", -1)) {
            int equals = parameter.indexOf('=');
            if (equals <= 0 || equals == parameter.length() - 1) {
                throw invalid(address, "parameter '" + parameter + "' is not key=value");
            }
            String key = parameter.substring(0, equals);
            String value = parameter.substring(equals + 1);
            switch (key) {
                case PRIORITY -> priority = bool(address, key, value);
                case LAST_VALUE_KEY -> lastValueKey = value;
                case LAST_VALUE -> {
                    if (bool(address, key, value) && lastValueKey == null) {
                        lastValueKey = QueueOptions.ARTEMIS_LAST_VALUE_KEY;
                    }
                }
                default -> throw invalid(address, "unknown queue option '" + key + "'");
            }
        }
        return Optional.of(new QueueAddress(name, priority, lastValueKey));
    }

    /** {@code base} with what this address asks for. */
    QueueOptions applyTo(QueueOptions base) {
        QueueOptions options = priority == null ? base : base.withPriority(priority);
        return lastValueKey == null ? options : options.withLastValueKey(lastValueKey);
    }

    /**
     * What this address asks for that a queue with {@code options} does not have, e.g. {@code priority=false};
     * empty when the queue has everything it asks for.
     */
    List<String> mismatches(QueueOptions options) {
        List<String> asked = new ArrayList<>();
        if (priority != null && priority != options.priority()) {
            asked.add(PRIORITY + "=" + priority);
        }
        if (lastValueKey != null && !lastValueKey.equals(options.lastValueKey())) {
            asked.add(LAST_VALUE_KEY + "=" + lastValueKey);
        }
        return asked;
    }

    private static boolean bool(String address, String key, String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid(address, "'" + key + "' must be true or false, not '" + value + "'");
        };
    }

    private static BrokerException invalid(String address, String problem) {
        return new BrokerException(ErrorKind.INVALID_FIELD, "address '" + address + "': " + problem
                + "; queue options are " + ALLOWED);
    }
}
