package org.tandembroker.systest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The procedures of {@code docs/operations.md} as its readers see them: the fenced block after each
 * {@code <!-- procedure: NAME -->} marker, its indentation removed. Tests run these blocks, so that the document
 * cannot drift from the product; {@link #mapped} turns the document's installation paths and ports into a test's.
 */
final class OperationsProcedures {
    private static final Pattern MARKER = Pattern.compile("<!-- procedure: (\\S+) -->");

    private final String document;

    private OperationsProcedures(String document) {
        this.document = document;
    }

    static OperationsProcedures read() throws IOException {
        return new OperationsProcedures(Files.readString(ScriptProcess.HOME.resolve("docs/operations.md")));
    }

    /** The block marked {@code name}, as written (comment lines kept). */
    String block(String name) {
        Matcher marker = MARKER.matcher(document);
        while (marker.find()) {
            if (!marker.group(1).equals(name)) {
                continue;
            }
            String rest = document.substring(marker.end());
            int open = rest.indexOf("```");
            int bodyStart = rest.indexOf('\n', open) + 1;
            int close = rest.indexOf("```", bodyStart);
            String indent = rest.substring(rest.lastIndexOf('\n', open) + 1, open);
            List<String> lines = new ArrayList<>();
            for (String line : rest.substring(bodyStart, close).split("\n")) {
                lines.add(line.startsWith(indent) ? line.substring(indent.length()) : line.strip());
            }
            while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) {
                lines.remove(lines.size() - 1);
            }
            return String.join("\n", lines);
        }
        throw new AssertionError("docs/operations.md has no block marked <!-- procedure: " + name + " -->");
    }

    /** The block's commands: its lines without comments and blank lines. */
    List<String> commands(String name) {
        String joined = block(name).replaceAll("\\\\\n\\s*", " "); // continuation lines
        return joined.lines().map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#"))
                .map(line -> line.replaceAll("\\s+#.*$", "")).toList();
    }

    /** {@code text} with the document's paths and ports replaced (each key a literal; ports as whole numbers). */
    static String mapped(String text, Path installation, Map<Integer, Integer> ports) {
        return mapped(text, Map.of("/opt/tandem", installation.toString()), ports);
    }

    /** {@code text} with each literal of {@code texts} replaced, then the ports. */
    static String mapped(String text, Map<String, String> texts, Map<Integer, Integer> ports) {
        String result = text;
        for (Map.Entry<String, String> literal : texts.entrySet()) {
            result = result.replace(literal.getKey(), literal.getValue());
        }
        for (Map.Entry<Integer, Integer> port : ports.entrySet()) {
            result = result.replaceAll("\\b" + port.getKey() + "\\b", String.valueOf(port.getValue()));
        }
        return result;
    }

}
