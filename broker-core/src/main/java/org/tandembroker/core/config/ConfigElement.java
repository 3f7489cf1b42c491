package org.tandembroker.core.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.w3c.dom.Attr;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * One element of a configuration file being read, with its path for error messages. Every reader validates
 * the value it returns; a bad one is a one-line {@link ConfigException} naming the file, the element (e.g.
 * {@code listeners/listener[amqp]@port}), the value and what is allowed.
 * <p>Paths leave out the root element for child elements, and name an element by its {@code name} attribute
 * ({@code queues/queue[orders]}) or, when it has none, by its position among its siblings of the same tag
 * ({@code bindings/binding[2]}).
 * <p>Confined to the loading thread.
 */
final class ConfigElement {

    /** How names of listeners, virtual hosts, queues and exchanges may look. */
    static final String NAME_RULE = "1-255 characters, no whitespace or control characters";
    static final String BOOLEAN = "true, false";

    /** Tags that may repeat: they always carry a suffix so that messages stay stable as a file grows. */
    private static final Set<String> REPEATED = Set.of("listener", "virtualHost", "queue", "exchange", "binding",
            "envConfig", "repConfig");

    private final Path file;
    private final Element element;
    private final String path;
    private final String childPrefix;
    private final ConfigVariables variables;
    private final Map<String, String> overrideSources = new HashMap<>();

    private ConfigElement(Path file, Element element, String path, String childPrefix, ConfigVariables variables) {
        this.file = file;
        this.variables = variables;
        this.element = element;
        this.path = path;
        this.childPrefix = childPrefix;
    }

    /** Parses {@code file} securely and checks that its root element is {@code rootTag}. */
    static ConfigElement parseRoot(Path file, String rootTag, ConfigVariables variables) throws ConfigException {
        Element root = SecureXml.parse(file).getDocumentElement();
        if (!root.getTagName().equals(rootTag)) {
            throw new ConfigException(file + ": root element <" + root.getTagName() + "> is not allowed; allowed: <"
                    + rootTag + ">");
        }
        return new ConfigElement(file, root, rootTag, "", variables);
    }

    Path file() {
        return file;
    }

    String path() {
        return path;
    }

    String attributePath(String attribute) {
        String source = overrideSources.get(attribute);
        if (source != null) {
            return path + "@" + attribute + " (from override " + source + ")";
        }
        return path + "@" + attribute + ConfigVariables.sourceNote(element.getAttribute(attribute));
    }

    /** This element's path, noting the variables its text reads: {@code store/nodeName (from ${TANDEM_NODE_NAME})}. */
    String textPath() {
        return path + ConfigVariables.sourceNote(rawText());
    }

    /**
     * Replaces an attribute's value with one given outside the file (e.g. {@code --port}); error messages then
     * name {@code source}.
     */
    void override(String attribute, String value, String source) {
        element.setAttribute(attribute, value);
        overrideSources.put(attribute, source);
    }

    // ---- structure ----

    /** Refuses attributes and child elements not listed, and text in an element meant to hold elements only. */
    void checkStructure(List<String> attributes, List<String> children) throws ConfigException {
        checkAttributes(attributes);
        NodeList nodes = element.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node node = nodes.item(i);
            if (node.getNodeType() == Node.ELEMENT_NODE) {
                String tag = node.getNodeName();
                if (!children.contains(tag)) {
                    throw new ConfigException(file + ": <" + childPrefix + tag + "> is not allowed here; allowed: "
                            + describeChoices(children, "no elements"));
                }
            } else if (isText(node) && !node.getNodeValue().isBlank()) {
                throw new ConfigException(file + ": <" + path + "> contains text '"
                        + SecureXml.oneLine(node.getNodeValue()) + "'; allowed: "
                        + describeChoices(children, "no content"));
            }
        }
    }

    /** Refuses attributes not listed and any child element: the element holds text only. */
    void checkTextOnly(List<String> attributes, String allowed) throws ConfigException {
        checkAttributes(attributes);
        if (hasChildElements()) {
            throw new ConfigException(file + ": <" + path + "> contains elements; allowed: " + allowed);
        }
    }

    void checkAttributes(List<String> attributes) throws ConfigException {
        NamedNodeMap present = element.getAttributes();
        for (int i = 0; i < present.getLength(); i++) {
            String attribute = ((Attr) present.item(i)).getName();
            if (!attributes.contains(attribute)) {
                throw new ConfigException(file + ": <" + path + "@" + attribute + "> is not a known attribute; "
                        + "allowed: " + describeChoices(attributes, "no attributes"));
            }
        }
    }

    /** The child elements with this tag, in file order. */
    List<ConfigElement> children(String tag) {
        List<ConfigElement> result = new ArrayList<>();
        for (Element child : childElements()) {
            if (child.getTagName().equals(tag)) {
                result.add(wrap(child, result.size() + 1));
            }
        }
        return result;
    }

    /** Every child element, in file order. */
    List<ConfigElement> children() {
        List<ConfigElement> result = new ArrayList<>();
        Map<String, Integer> positions = new HashMap<>();
        for (Element child : childElements()) {
            result.add(wrap(child, positions.merge(child.getTagName(), 1, Integer::sum)));
        }
        return result;
    }

    /** The child with this tag, which may appear at most once. */
    Optional<ConfigElement> optionalChild(String tag) throws ConfigException {
        List<ConfigElement> found = children(tag);
        if (found.size() > 1) {
            throw new ConfigException(file + ": <" + childPrefix + tag + "> appears " + found.size()
                    + " times; allowed: at most once");
        }
        return found.stream().findFirst();
    }

    ConfigElement requiredChild(String tag, String allowed) throws ConfigException {
        Optional<ConfigElement> child = optionalChild(tag);
        if (child.isEmpty()) {
            throw ConfigException.missing(file, childPrefix + tag, allowed);
        }
        return child.get();
    }

    String tag() {
        return element.getTagName();
    }

    boolean hasChildElements() {
        return !childElements().isEmpty();
    }

    /** The text directly inside this element (not inside its children), trimmed. */
    String ownText() throws ConfigException {
        StringBuilder text = new StringBuilder();
        NodeList nodes = element.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (isText(nodes.item(i))) {
                text.append(nodes.item(i).getNodeValue());
            }
        }
        return variables.resolve(file, path, text.toString()).trim();
    }

    /** The element's text, trimmed, its placeholders replaced (see {@link ConfigVariables}). */
    String text() throws ConfigException {
        return variables.resolve(file, path, element.getTextContent()).trim();
    }

    private String rawText() {
        return element.getTextContent();
    }

    // ---- attribute readers ----

    /** The attribute's value with its placeholders replaced (see {@link ConfigVariables}), if present. */
    Optional<String> attribute(String attribute) throws ConfigException {
        if (!element.hasAttribute(attribute)) {
            return Optional.empty();
        }
        return Optional.of(variables.resolve(file, attributePath(attribute), element.getAttribute(attribute)));
    }

    String requiredAttribute(String attribute, String allowed) throws ConfigException {
        String value = attribute(attribute).map(String::trim).orElse("");
        if (value.isEmpty()) {
            throw ConfigException.missing(file, attributePath(attribute), allowed);
        }
        return value;
    }

    /** A required name: see {@link #NAME_RULE}. */
    String name(String attribute) throws ConfigException {
        if (!element.hasAttribute(attribute)) {
            throw ConfigException.missing(file, attributePath(attribute), NAME_RULE);
        }
        String value = attribute(attribute).orElseThrow();
        if (!isValidName(value)) {
            throw invalid(attribute, value, NAME_RULE);
        }
        return value;
    }

    boolean bool(String attribute, boolean defaultValue) throws ConfigException {
        Optional<String> value = attribute(attribute);
        if (value.isEmpty()) {
            return defaultValue;
        }
        return switch (value.get().trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid(attribute, value.get(), BOOLEAN);
        };
    }

    long integer(String attribute, long min, long max, long defaultValue) throws ConfigException {
        Optional<String> value = attribute(attribute);
        if (value.isEmpty()) {
            return defaultValue;
        }
        String allowed = "an integer " + describeRange(min, max);
        long n;
        try {
            n = Long.parseLong(value.get().trim());
        } catch (NumberFormatException e) {
            throw invalid(attribute, value.get(), allowed);
        }
        if (n < min || n > max) {
            throw invalid(attribute, value.get(), allowed);
        }
        return n;
    }

    /** A size such as {@code 64MiB} (see {@link Units#parseBytes}). */
    long bytes(String attribute, long min, long max, long defaultValue) throws ConfigException {
        Optional<String> value = attribute(attribute);
        if (value.isEmpty()) {
            return defaultValue;
        }
        String allowed = Units.BYTES_FORMAT + ", " + describeRange(min, max) + " bytes";
        long n;
        try {
            n = Units.parseBytes(value.get());
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw invalid(attribute, value.get(), allowed);
        }
        if (n < min || n > max) {
            throw invalid(attribute, value.get(), allowed);
        }
        return n;
    }

    /** A duration such as {@code 30s} (see {@link Units#parseDuration}); a bare {@code 0} means none. */
    Duration duration(String attribute, Duration defaultValue) throws ConfigException {
        Optional<String> value = attribute(attribute);
        if (value.isEmpty()) {
            return defaultValue;
        }
        if (value.get().trim().equals("0")) {
            return Duration.ZERO;
        }
        try {
            return Units.parseDuration(value.get());
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw invalid(attribute, value.get(), "0 (none) or " + Units.DURATION_FORMAT);
        }
    }

    /** One of an enum's constants, named case-insensitively. */
    <E extends Enum<E>> E choice(String attribute, Class<E> type) throws ConfigException {
        List<String> allowed = new ArrayList<>();
        for (E constant : type.getEnumConstants()) {
            allowed.add(constant.name().toLowerCase(Locale.ROOT));
        }
        String value = requiredAttribute(attribute, String.join(", ", allowed));
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equalsIgnoreCase(value)) {
                return constant;
            }
        }
        throw invalid(attribute, value, String.join(", ", allowed));
    }

    ConfigException invalid(String attribute, String value, String allowed) {
        return ConfigException.invalidValue(file, attributePath(attribute), SecureXml.oneLine(value), allowed);
    }

    // ---- shared rules ----

    static boolean isValidName(String name) {
        if (name.isEmpty() || name.length() > 255) {
            return false;
        }
        return name.codePoints().noneMatch(c -> Character.isWhitespace(c) || Character.isSpaceChar(c)
                || Character.isISOControl(c));
    }

    static String describeRange(long min, long max) {
        if (max == Long.MAX_VALUE) {
            return ">= " + min;
        }
        return "from " + min + " to " + max;
    }

    private static String describeChoices(List<String> choices, String none) {
        return choices.isEmpty() ? none : String.join(", ", new LinkedHashSet<>(choices));
    }

    // ---- DOM details ----

    private ConfigElement wrap(Element child, int position) {
        String tag = child.getTagName();
        String label = child.hasAttribute("name") && !child.getAttribute("name").isBlank()
                ? child.getAttribute("name").trim()
                : String.valueOf(position);
        String childPath = childPrefix + tag + (isNamedElement(child) ? "[" + label + "]" : "");
        return new ConfigElement(file, child, childPath, childPath + "/", variables);
    }

    /** Elements that repeat get a [name] or [position] suffix; single elements ({@code <limits>}) do not. */
    private boolean isNamedElement(Element child) {
        return child.hasAttribute("name") || REPEATED.contains(child.getTagName())
                || countChildren(child.getTagName()) > 1;
    }

    private int countChildren(String tag) {
        int n = 0;
        for (Element child : childElements()) {
            if (child.getTagName().equals(tag)) {
                n++;
            }
        }
        return n;
    }

    private List<Element> childElements() {
        List<Element> result = new ArrayList<>();
        NodeList nodes = element.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i) instanceof Element child) {
                result.add(child);
            }
        }
        return result;
    }

    private static boolean isText(Node node) {
        return node.getNodeType() == Node.TEXT_NODE || node.getNodeType() == Node.CDATA_SECTION_NODE;
    }
}
