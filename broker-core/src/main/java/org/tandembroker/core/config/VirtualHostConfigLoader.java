package org.tandembroker.core.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.tandembroker.core.exchange.ExchangeType;

/**
 * Loads and validates a virtual host file.
 *
 * <h2>Format</h2>
 * <pre>{@code
 * <virtualHost name="default">
 *   <store type="bdb">                                   <!-- required -->
 *     <storePath>default/store</storePath>               <!-- any simple elements, for the store factory -->
 *     <durability>NO_SYNC</durability>
 *     <envConfig><name>je.cleaner.threads</name><value>2</value></envConfig>
 *     <repConfig><name>je.rep.insufficientReplicasTimeout</name><value>10 s</value></repConfig>
 *   </store>
 *   <queues autoCreate="true">                            <!-- optional -->
 *     <defaults durable="true" maxDepthMessages="0" maxDepthBytes="0" messageTtl="0"
 *               maxDeliveries="10" deadLetterQueue="DLQ"/>  <!-- optional -->
 *     <queue name="orders" maxDepthBytes="1GiB" messageTtl="1h" deadLetterQueue="orders.dlq"/>
 *   </queues>
 *   <exchanges>                                           <!-- optional -->
 *     <exchange name="news" type="topic" durable="true"/>
 *   </exchanges>
 *   <bindings>                                            <!-- optional -->
 *     <binding exchange="news" queue="orders" key="stocks.#"/>
 *   </bindings>
 * </virtualHost>
 * }</pre>
 *
 * <h2>Store</h2>
 * {@code <store>} is kept generic ({@link StoreSettings}): its required {@code type} attribute, the text of
 * each simple child element by name (the simple children of a group such as {@code <replicationTls>} as {@code
 * replicationTls/keyStore}), and the name/value pairs of every {@code <envConfig>} and
 * {@code <repConfig>} element in file order. Each of those may hold one pair or several
 * ({@code <name>a</name><value>1</value><name>b</name><value>2</value>}). Text may contain commas; a
 * backslash-escaped comma ({@code NO_SYNC\,NO_SYNC\,SIMPLE_MAJORITY}, an older form) is unescaped. The store
 * factory of the type validates the values.
 *
 * <h2>Queues</h2>
 * <table>
 *   <caption>Queue attributes ({@code <defaults>} and {@code <queue>})</caption>
 *   <tr><th>Attribute</th><th>Allowed</th><th>Built-in default</th></tr>
 *   <tr><td>durable</td><td>true, false</td><td>true</td></tr>
 *   <tr><td>maxDepthMessages</td><td>&gt;= 0, 0 = no limit</td><td>0</td></tr>
 *   <tr><td>maxDepthBytes</td><td>a size &gt;= 0, 0 = no limit</td><td>0</td></tr>
 *   <tr><td>messageTtl</td><td>0 (never) or a duration</td><td>0</td></tr>
 *   <tr><td>maxDeliveries</td><td>&gt;= 0, 0 = no limit</td><td>0</td></tr>
 *   <tr><td>deadLetterQueue</td><td>a queue name (created on demand if not declared), "" = none</td>
 *       <td>none</td></tr>
 *   <tr><td>priority</td><td>true (higher JMS priority first), false (one FIFO order)</td><td>true</td></tr>
 *   <tr><td>lastValueKey</td><td>{@code <queue>} only: an application property name; a new message replaces the
 *       queued one with the same value</td><td>none</td></tr>
 * </table>
 * {@code <queues autoCreate>} (default true) lets clients create queues by attaching to unknown addresses;
 * they take {@code <defaults>}. A declared queue takes {@code <defaults>} for each attribute it does not set,
 * except that a queue some other queue (or the defaults) names as its dead-letter queue does not inherit
 * {@code maxDeliveries} and {@code deadLetterQueue}: dead letters are not dead-lettered again. A queue naming
 * itself as its dead-letter queue is an error.
 *
 * <h2>Exchanges and bindings</h2>
 * {@code exchange@type} is direct, topic or fanout (case-insensitive); {@code durable} defaults to true.
 * Names starting with {@code amq.} are reserved: amq.direct, amq.topic and amq.fanout always exist.
 * Exchange names may not contain {@code /} (an address {@code exchange/key} names an exchange and a key) and
 * no queue may share an exchange's name. A binding names a declared (or predeclared) exchange and a declared
 * queue; {@code key} is required except for fanout exchanges, and a topic key's {@code *} and {@code #} must
 * be whole dot-separated words.
 * <p>Names (virtual host, queue, exchange) are 1-255 characters, without whitespace or control characters.
 */
public final class VirtualHostConfigLoader {

    /** The exchanges every virtual host has; files may not declare them. */
    public static final Map<String, ExchangeType> PREDECLARED_EXCHANGES = Map.of(
            "amq.direct", ExchangeType.DIRECT, "amq.topic", ExchangeType.TOPIC, "amq.fanout", ExchangeType.FANOUT);

    /** Settings of queues when a file has no {@code <defaults>}. */
    public static final QueueConfig BUILT_IN_QUEUE_DEFAULTS = new QueueConfig("", true, 0, 0, 0, 0, null);

    private static final List<String> QUEUE_ATTRIBUTES = List.of("durable", "maxDepthMessages", "maxDepthBytes",
            "messageTtl", "maxDeliveries", "deadLetterQueue", "priority");
    /** A last-value key belongs to one queue: the defaults (every auto-created queue) may not set it. */
    private static final String LAST_VALUE_KEY = "lastValueKey";

    private VirtualHostConfigLoader() {
    }

    public static VirtualHostConfig load(Path virtualHostXml) throws ConfigException {
        return load(virtualHostXml, ConfigVariables.SYSTEM);
    }

    /** Loads a virtual host file whose placeholders read {@code variables} (see {@link ConfigVariables}). */
    public static VirtualHostConfig load(Path virtualHostXml, ConfigVariables variables) throws ConfigException {
        Path file = virtualHostXml.toAbsolutePath().normalize();
        ConfigElement root = ConfigElement.parseRoot(file, "virtualHost", variables);
        root.checkStructure(List.of("name"), List.of("store", "queues", "exchanges", "bindings"));
        String name = root.name("name");

        StoreSettings store = store(root.requiredChild("store",
                "<store type=\"...\"> naming a store type, e.g. bdb, bdb-ha, memory"));

        boolean autoCreate = true;
        QueueConfig defaults = BUILT_IN_QUEUE_DEFAULTS;
        List<QueueConfig> queues = List.of();
        Optional<ConfigElement> queuesElement = root.optionalChild("queues");
        if (queuesElement.isPresent()) {
            ConfigElement q = queuesElement.get();
            q.checkStructure(List.of("autoCreate"), List.of("defaults", "queue"));
            autoCreate = q.bool("autoCreate", true);
            Optional<ConfigElement> defaultsElement = q.optionalChild("defaults");
            if (defaultsElement.isPresent()) {
                defaultsElement.get().checkStructure(QUEUE_ATTRIBUTES, List.of());
                defaults = queueSettings(defaultsElement.get(), "", BUILT_IN_QUEUE_DEFAULTS, false);
            }
            queues = queues(q, defaults);
        }

        List<ExchangeConfig> exchanges = List.of();
        Optional<ConfigElement> exchangesElement = root.optionalChild("exchanges");
        if (exchangesElement.isPresent()) {
            exchanges = exchanges(exchangesElement.get(), queues);
        }

        List<BindingConfig> bindings = List.of();
        Optional<ConfigElement> bindingsElement = root.optionalChild("bindings");
        if (bindingsElement.isPresent()) {
            bindings = bindings(bindingsElement.get(), queues, exchanges);
        }
        return new VirtualHostConfig(file, name, store, autoCreate, defaults, queues, exchanges, bindings);
    }

    private static StoreSettings store(ConfigElement element) throws ConfigException {
        element.checkAttributes(List.of("type"));
        String type = element.requiredAttribute("type", "a store type, e.g. bdb, bdb-ha, memory");
        if (!ConfigElement.isValidName(type)) {
            throw element.invalid("type", type, "a store type, e.g. bdb, bdb-ha, memory");
        }
        Map<String, String> elements = new LinkedHashMap<>();
        List<NameValue> envConfig = new ArrayList<>();
        List<NameValue> repConfig = new ArrayList<>();
        Map<String, String> sources = new LinkedHashMap<>();
        // Any simple child element is allowed (the store factory checks them), so checkStructure cannot list them.
        if (!element.ownText().isEmpty()) {
            throw new ConfigException(element.file() + ": <" + element.path() + "> contains text '"
                    + SecureXml.oneLine(element.ownText()) + "'; allowed: child elements for the store");
        }
        for (ConfigElement child : element.children()) {
            switch (child.tag()) {
                case "envConfig" -> envConfig.addAll(nameValues(child));
                case "repConfig" -> repConfig.addAll(nameValues(child));
                default -> {
                    if (!child.children().isEmpty()) {
                        // A group of settings (e.g. <replicationTls>): each simple child as "group/child".
                        groupOfSettings(element, child, elements);
                        continue;
                    }
                    child.checkTextOnly(List.of(),
                            "text only (name/value lists go in <envConfig> or <repConfig>)");
                    if (elements.put(child.tag(), unescape(child.text())) != null) {
                        throw new ConfigException(element.file() + ": <" + child.path() + "> appears more than "
                                + "once; allowed: at most once");
                    }
                    if (!child.textPath().equals(child.path())) {
                        sources.put(child.tag(), child.textPath().substring(child.path().length()).trim());
                    }
                }
            }
        }
        return new StoreSettings(element.file(), type, elements, envConfig, repConfig, sources);
    }

    /** The simple children of a store's settings group, as {@code group/child} (the store checks the names). */
    private static void groupOfSettings(ConfigElement store, ConfigElement group, Map<String, String> elements)
            throws ConfigException {
        if (!group.ownText().isEmpty()) {
            throw new ConfigException(store.file() + ": <" + group.path() + "> contains text '"
                    + SecureXml.oneLine(group.ownText()) + "'; allowed: child elements");
        }
        if (elements.keySet().stream().anyMatch(key -> key.startsWith(group.tag() + "/"))) {
            throw new ConfigException(store.file() + ": <" + group.path() + "> appears more than once; allowed: at "
                    + "most once");
        }
        for (ConfigElement setting : group.children()) {
            setting.checkTextOnly(List.of(), "text only");
            if (elements.put(group.tag() + "/" + setting.tag(), unescape(setting.text())) != null) {
                throw new ConfigException(store.file() + ": <" + setting.path() + "> appears more than once; "
                        + "allowed: at most once");
            }
        }
    }

    /** {@code <name>n</name><value>v</value>} pairs, in order. */
    private static List<NameValue> nameValues(ConfigElement element) throws ConfigException {
        element.checkStructure(List.of(), List.of("name", "value"));
        String expected = "pairs of <name>...</name><value>...</value>";
        List<ConfigElement> children = element.children();
        if (children.isEmpty()) {
            throw ConfigException.missing(element.file(), element.path() + "/name", expected);
        }
        List<NameValue> pairs = new ArrayList<>();
        for (int i = 0; i < children.size(); i += 2) {
            ConfigElement name = children.get(i);
            ConfigElement value = i + 1 < children.size() ? children.get(i + 1) : null;
            if (!name.tag().equals("name")) {
                throw new ConfigException(element.file() + ": <" + name.path() + "> is out of place; allowed: "
                        + expected);
            }
            if (value == null || !value.tag().equals("value")) {
                throw ConfigException.missing(element.file(), element.path() + "/value",
                        expected + " (after <name>" + name.text() + "</name>)");
            }
            name.checkTextOnly(List.of(), "text only");
            value.checkTextOnly(List.of(), "text only");
            if (name.text().isEmpty()) {
                throw ConfigException.invalidValue(element.file(), name.path(), "", "a non-empty option name");
            }
            pairs.add(new NameValue(name.text(), unescape(value.text())));
        }
        return pairs;
    }

    /** Undoes the older form's backslash-escaped commas; other backslashes (Windows paths) stay. */
    static String unescape(String text) {
        return text.replace("\\,", ",");
    }

    private static List<QueueConfig> queues(ConfigElement element, QueueConfig defaults) throws ConfigException {
        List<ConfigElement> queueElements = element.children("queue");
        Set<String> deadLetterTargets = new HashSet<>();
        if (defaults.deadLetterQueue() != null) {
            deadLetterTargets.add(defaults.deadLetterQueue());
        }
        for (ConfigElement q : queueElements) {
            q.attribute("deadLetterQueue").filter(s -> !s.isEmpty()).ifPresent(deadLetterTargets::add);
        }
        Map<String, QueueConfig> queues = new LinkedHashMap<>();
        for (ConfigElement q : queueElements) {
            List<String> allowed = new ArrayList<>(QUEUE_ATTRIBUTES);
            allowed.add(0, "name");
            allowed.add(LAST_VALUE_KEY);
            q.checkStructure(allowed, List.of());
            String name = q.name("name");
            if (queues.containsKey(name)) {
                throw q.invalid("name", name, "a name not used by another queue");
            }
            if (PREDECLARED_EXCHANGES.containsKey(name)) {
                throw q.invalid("name", name, "a name not used by an exchange (an address names a queue or an "
                        + "exchange)");
            }
            queues.put(name, queueSettings(q, name, defaults, deadLetterTargets.contains(name)));
        }
        return List.copyOf(queues.values());
    }

    private static QueueConfig queueSettings(ConfigElement e, String name, QueueConfig inherited,
                                             boolean isDeadLetterQueue) throws ConfigException {
        boolean durable = e.bool("durable", inherited.durable());
        long maxDepthMessages = e.integer("maxDepthMessages", 0, Long.MAX_VALUE, inherited.maxDepthMessages());
        long maxDepthBytes = e.bytes("maxDepthBytes", 0, Long.MAX_VALUE, inherited.maxDepthBytes());
        long ttl = e.duration("messageTtl", Duration.ofMillis(inherited.messageTtlMillis())).toMillis();
        int maxDeliveries = (int) e.integer("maxDeliveries", 0, Integer.MAX_VALUE,
                isDeadLetterQueue ? 0 : inherited.maxDeliveries());
        String deadLetterQueue = isDeadLetterQueue ? null : inherited.deadLetterQueue();
        Optional<String> dlq = e.attribute("deadLetterQueue");
        if (dlq.isPresent()) {
            if (dlq.get().isEmpty()) {
                deadLetterQueue = null;
            } else if (!ConfigElement.isValidName(dlq.get())) {
                throw e.invalid("deadLetterQueue", dlq.get(), ConfigElement.NAME_RULE + ", or \"\" for none");
            } else if (dlq.get().equals(name)) {
                throw e.invalid("deadLetterQueue", dlq.get(), "the name of another queue, or \"\" for none");
            } else {
                deadLetterQueue = dlq.get();
            }
        }
        QueueOptions options = inherited.options().withPriority(e.bool("priority", inherited.options().priority()));
        Optional<String> lastValueKey = e.attribute(LAST_VALUE_KEY);
        if (lastValueKey.isPresent()) {
            if (!ConfigElement.isValidName(lastValueKey.get())) {
                throw e.invalid(LAST_VALUE_KEY, lastValueKey.get(), "an application property name: "
                        + ConfigElement.NAME_RULE);
            }
            options = options.withLastValueKey(lastValueKey.get());
        }
        return new QueueConfig(name, durable, maxDepthMessages, maxDepthBytes, ttl, maxDeliveries, deadLetterQueue,
                options);
    }

    private static List<ExchangeConfig> exchanges(ConfigElement element, List<QueueConfig> queues)
            throws ConfigException {
        element.checkStructure(List.of(), List.of("exchange"));
        Map<String, ExchangeConfig> exchanges = new LinkedHashMap<>();
        for (ConfigElement x : element.children("exchange")) {
            x.checkStructure(List.of("name", "type", "durable"), List.of());
            String name = x.name("name");
            if (name.startsWith("amq.")) {
                throw x.invalid("name", name, "a name not starting with 'amq.' (reserved; "
                        + String.join(", ", PREDECLARED_EXCHANGES.keySet().stream().sorted().toList()) + " are predeclared)");
            }
            if (name.contains("/")) {
                throw x.invalid("name", name, ConfigElement.NAME_RULE + ", without '/'");
            }
            if (exchanges.containsKey(name)) {
                throw x.invalid("name", name, "a name not used by another exchange");
            }
            if (queues.stream().anyMatch(q -> q.name().equals(name))) {
                throw x.invalid("name", name, "a name not used by a queue (an address names a queue or an "
                        + "exchange)");
            }
            ExchangeType type = x.choice("type", ExchangeType.class);
            exchanges.put(name, new ExchangeConfig(name, type, x.bool("durable", true)));
        }
        return List.copyOf(exchanges.values());
    }

    private static List<BindingConfig> bindings(ConfigElement element, List<QueueConfig> queues,
                                                List<ExchangeConfig> exchanges) throws ConfigException {
        element.checkStructure(List.of(), List.of("binding"));
        Map<String, ExchangeType> exchangeTypes = new LinkedHashMap<>();
        exchanges.forEach(x -> exchangeTypes.put(x.name(), x.type()));
        PREDECLARED_EXCHANGES.keySet().stream().sorted().forEach(n -> exchangeTypes.put(n,
                PREDECLARED_EXCHANGES.get(n)));
        List<String> queueNames = queues.stream().map(QueueConfig::name).toList();

        Set<BindingConfig> bindings = new LinkedHashSet<>();
        for (ConfigElement b : element.children("binding")) {
            b.checkStructure(List.of("exchange", "queue", "key"), List.of());
            String exchangeAllowed = "a declared exchange: " + String.join(", ", exchangeTypes.keySet());
            String exchange = b.requiredAttribute("exchange", exchangeAllowed);
            if (!exchangeTypes.containsKey(exchange)) {
                throw b.invalid("exchange", exchange, exchangeAllowed);
            }
            String queueAllowed = queueNames.isEmpty() ? "a queue declared in <queues> (none is)"
                    : "a declared queue: " + String.join(", ", queueNames);
            String queue = b.requiredAttribute("queue", queueAllowed);
            if (!queueNames.contains(queue)) {
                throw b.invalid("queue", queue, queueAllowed);
            }
            ExchangeType type = exchangeTypes.get(exchange);
            String key = b.attribute("key").orElse(null);
            if (key == null) {
                if (type != ExchangeType.FANOUT) {
                    throw ConfigException.missing(b.file(), b.attributePath("key"),
                            "a binding key for " + type.name().toLowerCase(Locale.ROOT)
                                    + " exchange " + exchange + " (\"\" matches an empty routing key)");
                }
                key = "";
            }
            if (type == ExchangeType.TOPIC && !isValidTopicKey(key)) {
                throw b.invalid("key", key, "dot-separated words where '*' (one word) and '#' (zero or more "
                        + "words) stand alone, e.g. stocks.*.nyse or stocks.#");
            }
            if (!bindings.add(new BindingConfig(exchange, queue, key))) {
                throw b.invalid("key", key, "a binding not already declared for exchange " + exchange
                        + " and queue " + queue);
            }
        }
        return List.copyOf(bindings);
    }

    private static boolean isValidTopicKey(String key) {
        for (String word : key.split("\\.", -1)) {
            if ((word.contains("*") || word.contains("#")) && !word.equals("*") && !word.equals("#")) {
                return false;
            }
        }
        return true;
    }
}
