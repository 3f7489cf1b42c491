package org.tandembroker.perftests;

import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A broker address for the benchmark clients, given either as a Qpid JMS URI ({@code amqp://}, {@code amqps://},
 * {@code amqpws://}, {@code amqpwss://}, {@code failover:(...)}), used as it is, or in the spec's connection URL
 * form (the old Qpid JMS client for AMQP 0-x), translated into a Qpid JMS URI:
 *
 * <pre>
 * amqp://USER:PASSWORD@CLIENTID/VHOST?brokerlist='tcp://h1:5672?connectdelay='1000'&amp;retries='3';tcp://h2:5672'&amp;failover='roundrobin?cyclecount='30''
 *   becomes
 * failover:(amqp://h1:5672?amqp.vhost=VHOST,amqp://h2:5672?amqp.vhost=VHOST)?failover.maxReconnectAttempts=120
 *     &amp;failover.initialReconnectDelay=0&amp;failover.reconnectDelay=1000&amp;failover.useReconnectBackOff=false
 * </pre>
 *
 * <p>What the old client's options meant, and what they become. Qpid JMS's failover provider makes
 * <i>attempts</i>, each a pass over every URI of the list in order (randomize is off by default), waits
 * {@code reconnectDelay} between passes and gives up after {@code maxReconnectAttempts} passes, counted afresh after
 * every successful connection and applying to the first connection too (no {@code startupMaxReconnectAttempts} is
 * set).
 * <ul>
 *   <li>{@code brokerlist='tcp://HOST[:PORT][?OPTIONS];...'}: the nested URIs, in the same order (master first),
 *       {@code amqp://HOST:PORT}, port 5672 when none is given. Only {@code tcp://} brokers; per broker
 *       {@code retries}, {@code connectdelay}, {@code connecttimeout} ({@code transport.connectTimeout}, ms) and
 *       {@code tcp_nodelay} ({@code transport.tcpNoDelay}).</li>
 *   <li>{@code retries='R'} (tries of one broker before the next) and {@code cyclecount='C'} (rounds of the whole
 *       list): Qpid JMS cannot retry one URI before moving on, so the same number of tries per broker is kept:
 *       {@code failover.maxReconnectAttempts = max(1, C) x (R + 1)}, with the largest {@code retries} of the
 *       list. When neither is given, Qpid JMS's default stays (-1: reconnect forever).</li>
 *   <li>{@code connectdelay='D'} (ms between tries): {@code failover.reconnectDelay=D} between passes, without
 *       back-off (the old client had none), and {@code failover.initialReconnectDelay=0} (the old client moved to
 *       the next broker at once after a loss). The largest value of the list.</li>
 *   <li>{@code failover='roundrobin[?cyclecount='C']'}, or no failover option: the above.
 *       {@code failover='singlebroker'}: the first broker only, with its retries. {@code failover='nofailover'}:
 *       the first broker only, as a plain {@code amqp://} URI (no reconnection; its retries and connectdelay do
 *       nothing). {@code failover='failover_exchange'} (the broker pushed its member list) has no equivalent.</li>
 *   <li>{@code VHOST}: {@code amqp.vhost} on each nested URI (none when the path is empty). USER and PASSWORD
 *       (percent-decoded) go to the connection factory, not into the URI. CLIENTID is returned, not put into
 *       the URI: every benchmark connection sets its own client ID.</li>
 *   <li>{@code maxprefetch='N'}: {@code jms.prefetchPolicy.all=N}.</li>
 * </ul>
 * Anything else (TLS and SASL options, other options, other failover methods, malformed quoting) is refused
 * with an {@link IllegalArgumentException} that names the option and says why: a benchmark that silently drops
 * an option would measure something else than the user asked for.
 *
 * <p>Quoting: every option value is enclosed in single quotes, and the quotes of options nested inside a value
 * ({@code brokerlist}'s broker options, {@code failover}'s {@code cyclecount}) are not escaped. A quote right after
 * {@code =} opens a nested value; any other quote closes the innermost open one.
 *
 * @param uri         the Qpid JMS connection URI
 * @param user        the user for the connection factory, or null
 * @param password    the password for the connection factory, or null
 * @param virtualHost the virtual host the URL named, or null
 * @param clientId    the client ID the URL named, or null
 * @param notes       how the translation treated options whose meaning changed (empty for a Qpid JMS URI)
 */
public record ConnectionUrl(String uri, String user, String password, String virtualHost, String clientId,
                            List<String> notes) {
    private static final List<String> QPID_JMS_SCHEMES = List.of("amqp://", "amqps://", "amqpws://", "amqpwss://",
            "failover:");

    public ConnectionUrl {
        notes = List.copyOf(notes);
    }

    /**
     * The URL as the benchmark's clients use it: a Qpid JMS URI as it is (with no user or password), the spec's
     * form translated. Throws {@link IllegalArgumentException} for anything else.
     */
    public static ConnectionUrl of(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("the URL is empty");
        }
        String trimmed = url.strip();
        if (isSpecForm(trimmed)) {
            return translate(trimmed);
        }
        String lower = trimmed.toLowerCase(Locale.ROOT);
        if (QPID_JMS_SCHEMES.stream().noneMatch(lower::startsWith)) {
            throw new IllegalArgumentException("'" + url + "' is neither a Qpid JMS URI (amqp://, amqps://,"
                    + " amqpws://, amqpwss://, failover:(...)) nor the connection URL form"
                    + " amqp://USER:PASSWORD@CLIENTID/VHOST?brokerlist='tcp://HOST:PORT'");
        }
        if (lower.startsWith("failover:") && !lower.startsWith("failover:(")) {
            throw new IllegalArgumentException("'" + url + "': a Qpid JMS failover URI lists its brokers in"
                    + " parentheses: failover:(amqp://h1:5672,amqp://h2:5672)");
        }
        return new ConnectionUrl(trimmed, null, null, null, null, List.of());
    }

    /**
     * Whether {@code url} is in the spec's connection URL form: {@code amqp://...} with a {@code brokerlist} option
     * or any quoted option value ({@code NAME='VALUE'}, which a Qpid JMS URI never has).
     */
    public static boolean isSpecForm(String url) {
        String lower = url.strip().toLowerCase(Locale.ROOT);
        int query = lower.indexOf('?');
        if (!lower.startsWith("amqp://") || query < 0) {
            return false;
        }
        String options = lower.substring(query + 1);
        return options.startsWith("brokerlist=") || options.contains("&brokerlist=") || options.contains("='");
    }

    /** Translates a URL of the spec's form; see the class comment. */
    public static ConnectionUrl translate(String url) {
        if (!url.toLowerCase(Locale.ROOT).startsWith("amqp://")) {
            throw new IllegalArgumentException("a connection URL starts with amqp://, not '" + url + "'");
        }
        String rest = url.substring("amqp://".length());
        int queryAt = rest.indexOf('?');
        if (queryAt < 0) {
            throw new IllegalArgumentException("the connection URL has no options; it needs at least"
                    + " brokerlist='tcp://HOST:PORT'");
        }
        String head = rest.substring(0, queryAt);
        int at = head.lastIndexOf('@');
        String user = null;
        String password = null;
        if (at >= 0) {
            String userInfo = head.substring(0, at);
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon), "the user name");
            password = colon < 0 ? null : decode(userInfo.substring(colon + 1), "the password");
            head = head.substring(at + 1);
        }
        int slash = head.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("the connection URL needs a '/' between the client ID and the"
                    + " virtual host (amqp://USER:PASSWORD@CLIENTID/VHOST?...), even with no virtual host: '"
                    + url + "'");
        }
        String clientId = head.substring(0, slash).isEmpty() ? null : head.substring(0, slash);
        String vhost = head.substring(slash + 1);
        if (vhost.startsWith("/")) {
            vhost = vhost.substring(1); // the 0-8 form amqp://u:p@client//vhost
        }
        if (vhost.isEmpty()) {
            vhost = null;
        }

        Map<String, String> options = options(rest.substring(queryAt + 1), "the connection URL");
        List<String> notes = new ArrayList<>();
        String brokerList = null;
        String failover = null;
        String maxPrefetch = null;
        for (Map.Entry<String, String> option : options.entrySet()) {
            switch (option.getKey()) {
                case "brokerlist" -> brokerList = option.getValue();
                case "failover" -> failover = option.getValue();
                case "maxprefetch" -> maxPrefetch = Long.toString(number("maxprefetch", option.getValue()));
                case "ssl" -> throw unsupported("ssl", "TLS options are not translated; give a Qpid JMS amqps://"
                        + " URI with its transport.* options instead");
                case "sasl_mechs", "sasl_encryption", "sasl_protocol", "sasl_server" -> throw unsupported(
                        option.getKey(), "SASL options are not translated; give a Qpid JMS URI with"
                                + " amqp.saslMechanisms instead");
                default -> throw unsupported(option.getKey(), "the translation knows brokerlist, failover and"
                        + " maxprefetch only; give a Qpid JMS URI for anything else");
            }
        }
        if (brokerList == null || brokerList.isBlank()) {
            throw new IllegalArgumentException("the connection URL has no brokerlist option"
                    + " (brokerlist='tcp://HOST:PORT;tcp://HOST:PORT')");
        }

        String method = "roundrobin";
        Long cycleCount = null;
        if (failover != null) {
            int q = failover.indexOf('?');
            method = (q < 0 ? failover : failover.substring(0, q)).strip().toLowerCase(Locale.ROOT);
            Map<String, String> failoverOptions = q < 0 ? Map.of()
                    : options(failover.substring(q + 1), "failover='" + method + "'");
            for (Map.Entry<String, String> option : failoverOptions.entrySet()) {
                if (option.getKey().equals("cyclecount") && method.equals("roundrobin")) {
                    cycleCount = number("cyclecount", option.getValue());
                } else {
                    throw unsupported(option.getKey(), "failover='" + method + "' takes "
                            + (method.equals("roundrobin") ? "cyclecount only" : "no options"));
                }
            }
            switch (method) {
                case "roundrobin", "singlebroker", "nofailover" -> { }
                case "failover_exchange" -> throw unsupported("failover='failover_exchange'", "the broker"
                        + " pushed its member list to the old client; Qpid JMS has no equivalent: list every node"
                        + " in brokerlist and use failover='roundrobin'");
                default -> throw unsupported("failover='" + method + "'", "known methods: roundrobin,"
                        + " singlebroker, nofailover");
            }
        }

        List<Broker> brokers = new ArrayList<>();
        for (String entry : split(brokerList, ';', "brokerlist")) {
            if (!entry.isBlank()) {
                brokers.add(broker(entry.strip()));
            }
        }
        if (brokers.isEmpty()) {
            throw new IllegalArgumentException("brokerlist names no broker");
        }
        if (!method.equals("roundrobin") && brokers.size() > 1) {
            notes.add("failover='" + method + "' uses the first broker of brokerlist only, as the old client did;"
                    + " the other " + (brokers.size() - 1) + " are ignored");
            brokers = List.of(brokers.get(0));
        }

        List<String> nested = new ArrayList<>();
        for (Broker broker : brokers) {
            List<String> query = new ArrayList<>();
            if (vhost != null) {
                query.add("amqp.vhost=" + URLEncoder.encode(vhost, StandardCharsets.UTF_8));
            }
            query.addAll(broker.transportOptions());
            nested.add("amqp://" + broker.hostPort() + (query.isEmpty() ? "" : "?" + String.join("&", query)));
        }
        List<String> failoverQuery = new ArrayList<>();
        long retries = brokers.stream().mapToLong(Broker::retries).max().orElse(0);
        Long connectDelay = brokers.stream().map(Broker::connectDelay).filter(d -> d != null)
                .max(Long::compare).orElse(null);
        String uri;
        if (method.equals("nofailover")) {
            if (retries > 0 || connectDelay != null || cycleCount != null) {
                notes.add("failover='nofailover': no reconnection, so retries and connectdelay have no effect");
            }
            uri = nested.get(0) + (maxPrefetch == null ? ""
                    : (nested.get(0).contains("?") ? "&" : "?") + "jms.prefetchPolicy.all=" + maxPrefetch);
        } else {
            boolean anyRetries = brokers.stream().anyMatch(b -> b.retriesGiven());
            if (cycleCount != null || anyRetries) {
                long cycles = Math.max(1, cycleCount == null ? 1 : cycleCount);
                failoverQuery.add("failover.maxReconnectAttempts=" + Math.multiplyExact(cycles, retries + 1));
            } else {
                notes.add("no cyclecount or retries: Qpid JMS's default applies (reconnect forever)");
            }
            if (connectDelay != null) {
                failoverQuery.add("failover.initialReconnectDelay=0");
                failoverQuery.add("failover.reconnectDelay=" + connectDelay);
                failoverQuery.add("failover.useReconnectBackOff=false");
            }
            if (brokers.stream().map(Broker::retries).distinct().count() > 1) {
                notes.add("retries differ between brokers; the largest, " + retries + ", sets the attempts");
            }
            if (brokers.stream().map(Broker::connectDelay).distinct().count() > 1) {
                notes.add("connectdelay differs between brokers; the largest, " + connectDelay + " ms, applies");
            }
            if (maxPrefetch != null) {
                failoverQuery.add("jms.prefetchPolicy.all=" + maxPrefetch);
            }
            uri = "failover:(" + String.join(",", nested) + ")"
                    + (failoverQuery.isEmpty() ? "" : "?" + String.join("&", failoverQuery));
        }
        return new ConnectionUrl(uri, user, password, vhost, clientId, notes);
    }

    /** One entry of brokerlist. */
    private record Broker(String hostPort, long retries, boolean retriesGiven, Long connectDelay,
                          List<String> transportOptions) {
    }

    private static Broker broker(String entry) {
        int scheme = entry.indexOf("://");
        if (scheme < 0) {
            throw new IllegalArgumentException("broker '" + entry + "' in brokerlist has no scheme;"
                    + " write tcp://HOST:PORT");
        }
        String transport = entry.substring(0, scheme).toLowerCase(Locale.ROOT);
        if (!transport.equals("tcp")) {
            throw unsupported(transport + "://", "only tcp:// brokers are translated (broker '" + entry + "');"
                    + " for TLS give a Qpid JMS amqps:// URI");
        }
        String rest = entry.substring(scheme + 3);
        int q = rest.indexOf('?');
        String address = q < 0 ? rest : rest.substring(0, q);
        Map<String, String> options = q < 0 ? Map.of() : options(rest.substring(q + 1), "broker '" + address + "'");
        if (address.endsWith("/")) {
            address = address.substring(0, address.length() - 1);
        }
        String host;
        String port;
        if (address.startsWith("[")) {
            int close = address.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("broker '" + entry + "': unclosed '[' in an IPv6 address");
            }
            host = address.substring(0, close + 1);
            port = address.length() > close + 1 && address.charAt(close + 1) == ':'
                    ? address.substring(close + 2) : "5672";
        } else {
            int colon = address.lastIndexOf(':');
            host = colon < 0 ? address : address.substring(0, colon);
            port = colon < 0 ? "5672" : address.substring(colon + 1);
        }
        if (host.isEmpty() || host.contains("/") || host.contains("@")) {
            throw new IllegalArgumentException("broker '" + entry + "' in brokerlist has no usable host name");
        }
        if (!port.matches("\\d{1,5}") || Integer.parseInt(port) > 65535) {
            throw new IllegalArgumentException("broker '" + entry + "' in brokerlist: '" + port
                    + "' is not a port number");
        }
        long retries = 0;
        boolean retriesGiven = false;
        Long connectDelay = null;
        List<String> transportOptions = new ArrayList<>();
        for (Map.Entry<String, String> option : options.entrySet()) {
            String name = option.getKey();
            switch (name) {
                case "retries" -> {
                    retries = number(name, option.getValue());
                    retriesGiven = true;
                }
                case "connectdelay" -> connectDelay = number(name, option.getValue());
                case "connecttimeout" -> transportOptions.add("transport.connectTimeout="
                        + number(name, option.getValue()));
                case "tcp_nodelay" -> transportOptions.add("transport.tcpNoDelay="
                        + bool(name, option.getValue()));
                case "ssl", "ssl_verify_hostname", "ssl_cert_alias", "trust_store", "trust_store_password",
                     "key_store", "key_store_password" -> throw unsupported(name, "TLS options are not translated;"
                        + " give a Qpid JMS amqps:// URI with its transport.* options instead");
                case "sasl_mechs", "sasl_encryption", "sasl_protocol", "sasl_server" -> throw unsupported(name,
                        "SASL options are not translated; give a Qpid JMS URI with amqp.saslMechanisms instead");
                default -> throw unsupported(name, "broker options translated: retries, connectdelay,"
                        + " connecttimeout, tcp_nodelay");
            }
        }
        return new Broker(host + ":" + port, retries, retriesGiven, connectDelay, transportOptions);
    }

    /**
     * Parses {@code name='value'&name='value'...}, honouring nested quotes; keys are lower-cased. {@code where}
     * names the part of the URL in error messages.
     */
    static Map<String, String> options(String text, String where) {
        Map<String, String> options = new LinkedHashMap<>();
        int i = 0;
        while (i < text.length()) {
            int eq = text.indexOf('=', i);
            if (eq < 0) {
                throw new IllegalArgumentException("in " + where + ": '" + text.substring(i)
                        + "' is not an option (NAME='VALUE')");
            }
            String name = text.substring(i, eq).strip().toLowerCase(Locale.ROOT);
            if (name.isEmpty() || !name.matches("[a-z0-9_.-]+")) {
                throw new IllegalArgumentException("in " + where + ": '" + text.substring(i, eq)
                        + "' is not an option name");
            }
            if (eq + 1 >= text.length() || text.charAt(eq + 1) != '\'') {
                throw new IllegalArgumentException("in " + where + ": the value of option '" + name
                        + "' must be in single quotes: " + name + "='...'");
            }
            int depth = 1;
            int j = eq + 2;
            for (; j < text.length() && depth > 0; j++) {
                if (text.charAt(j) == '\'') {
                    depth += text.charAt(j - 1) == '=' ? 1 : -1;
                }
            }
            if (depth > 0) {
                throw new IllegalArgumentException("in " + where + ": the value of option '" + name
                        + "' has an unclosed quote");
            }
            String value = text.substring(eq + 2, j - 1);
            if (options.put(name, value) != null) {
                throw new IllegalArgumentException("in " + where + ": option '" + name + "' is given twice");
            }
            if (j < text.length() && text.charAt(j) != '&') {
                throw new IllegalArgumentException("in " + where + ": after option " + name + "='" + value
                        + "' comes '" + text.substring(j) + "', not '&' and the next option (unbalanced quotes?)");
            }
            i = j + 1;
        }
        return options;
    }

    /** Splits {@code text} at {@code separator}s outside quotes. */
    private static List<String> split(String text, char separator, String where) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\'') {
                depth += i > 0 && text.charAt(i - 1) == '=' ? 1 : -1;
                if (depth < 0) {
                    throw new IllegalArgumentException("in " + where + ": unbalanced quote at '"
                            + text.substring(i) + "'");
                }
            } else if (c == separator && depth == 0) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(text.substring(start));
        return parts;
    }

    private static long number(String option, String value) {
        try {
            long n = Long.parseLong(value.strip());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option '" + option + "': '" + value
                    + "' is not a non-negative whole number");
        }
    }

    private static boolean bool(String option, String value) {
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("option '" + option + "': '" + value
                    + "' is neither true nor false");
        };
    }

    private static IllegalArgumentException unsupported(String option, String why) {
        return new IllegalArgumentException("unsupported option '" + option + "': " + why);
    }

    /** Percent-decoding of user info ({@code %40} is {@code @}); a {@code +} stays a {@code +}. */
    private static String decode(String text, String what) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%') {
                if (i + 2 >= text.length() || !text.substring(i + 1, i + 3).matches("[0-9A-Fa-f]{2}")) {
                    throw new IllegalArgumentException(what + " has a '%' not followed by two hex digits");
                }
                bytes.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
