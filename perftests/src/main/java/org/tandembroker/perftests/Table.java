package org.tandembroker.perftests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A table of results, rendered as Markdown (for people and docs/performance.md) or CSV (for tools).
 *
 * <p>Threads: filled and rendered by one thread.
 */
public final class Table {
    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    public Table(List<String> headers) {
        this.headers = List.copyOf(headers);
    }

    public Table add(List<String> row) {
        if (row.size() != headers.size()) {
            throw new IllegalArgumentException("a row of " + row.size() + " cells for " + headers.size() + " columns");
        }
        rows.add(List.copyOf(row));
        return this;
    }

    public List<String> header() {
        return headers;
    }

    public List<List<String>> rows() {
        return List.copyOf(rows);
    }

    /** Markdown with padded columns, so the text reads as a table too. */
    public String markdown() {
        int[] widths = new int[headers.size()];
        for (int c = 0; c < widths.length; c++) {
            widths[c] = Math.max(3, headers.get(c).length());
            for (List<String> row : rows) {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        StringBuilder text = new StringBuilder();
        appendRow(text, headers, widths);
        List<String> rule = new ArrayList<>();
        for (int width : widths) {
            rule.add("-".repeat(width));
        }
        appendRow(text, rule, widths);
        for (List<String> row : rows) {
            appendRow(text, row, widths);
        }
        return text.toString();
    }

    private static void appendRow(StringBuilder text, List<String> cells, int[] widths) {
        text.append('|');
        for (int c = 0; c < cells.size(); c++) {
            String cell = cells.get(c).replace("|", "\\|");
            text.append(' ').append(cell).append(" ".repeat(Math.max(0, widths[c] - cell.length()))).append(" |");
        }
        text.append('\n');
    }

    /** RFC 4180 CSV: a header line, then one line per row. */
    public void writeCsv(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(csvLine(headers));
        for (List<String> row : rows) {
            lines.add(csvLine(row));
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    private static String csvLine(List<String> cells) {
        return cells.stream().map(Table::csvCell).collect(Collectors.joining(","));
    }

    private static String csvCell(String cell) {
        return cell.contains(",") || cell.contains("\"") || cell.contains("\n")
                ? '"' + cell.replace("\"", "\"\"") + '"' : cell;
    }
}
