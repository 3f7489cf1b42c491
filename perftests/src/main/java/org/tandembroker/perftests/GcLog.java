package org.tandembroker.perftests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The heap figures of a JVM's {@code -Xlog:gc} file: every pause line reads
 * {@code [12.345s][info][gc] GC(7) Pause Young (Normal) (G1 Evacuation Pause) 300M->120M(512M) 5.123ms}, i.e. heap
 * used before and after the collection and the heap committed. Heap use only grows between collections, so the
 * largest "before" is the peak heap use, and the largest "after" bounds the live data from above.
 *
 * @param pauses            collection pauses (young, mixed, remark, cleanup, full)
 * @param fullPauses        full collections among them
 * @param peakUsedBytes     largest heap use before a collection
 * @param peakAfterGcBytes  largest heap use right after a collection
 * @param peakCommittedBytes largest heap committed
 * @param pauseMillis       total pause time
 */
public record GcLog(int pauses, int fullPauses, long peakUsedBytes, long peakAfterGcBytes, long peakCommittedBytes,
                    double pauseMillis) {
    private static final Pattern PAUSE = Pattern.compile(
            "GC\\(\\d+\\) (Pause .*?)\\s(\\d+)([KMG])->(\\d+)([KMG])\\((\\d+)([KMG])\\)(?:\\s+(\\d+(?:\\.\\d+)?)ms)?");

    /** Reads {@code file}; an empty or missing log gives zeros. */
    public static GcLog read(Path file) throws IOException {
        return Files.exists(file) ? parse(Files.readAllLines(file)) : parse(List.of());
    }

    static GcLog parse(List<String> lines) {
        int pauses = 0;
        int full = 0;
        long peakUsed = 0;
        long peakAfter = 0;
        long peakCommitted = 0;
        double millis = 0;
        for (String line : lines) {
            Matcher m = PAUSE.matcher(line);
            if (!m.find()) {
                continue;
            }
            pauses++;
            if (m.group(1).startsWith("Pause Full")) {
                full++;
            }
            peakUsed = Math.max(peakUsed, bytes(m.group(2), m.group(3)));
            peakAfter = Math.max(peakAfter, bytes(m.group(4), m.group(5)));
            peakCommitted = Math.max(peakCommitted, bytes(m.group(6), m.group(7)));
            if (m.group(8) != null) {
                millis += Double.parseDouble(m.group(8));
            }
        }
        return new GcLog(pauses, full, peakUsed, peakAfter, peakCommitted, millis);
    }

    private static long bytes(String amount, String unit) {
        long value = Long.parseLong(amount);
        return switch (unit) {
            case "K" -> value << 10;
            case "M" -> value << 20;
            default -> value << 30;
        };
    }
}
