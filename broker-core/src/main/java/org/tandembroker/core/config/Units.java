package org.tandembroker.core.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the sizes and durations that configuration files use. */
public final class Units {
    public static final String BYTES_FORMAT = "a byte count with optional unit B, KB, KiB, MB, MiB, GB, GiB (e.g. 64MiB)";
    public static final String DURATION_FORMAT = "a duration with unit ms, s, min, h, d (e.g. 30s, 500ms)";

    private static final Pattern BYTES = Pattern.compile("(\\d+)\\s*([kmgt]i?b?|b)?", Pattern.CASE_INSENSITIVE);
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|min|h|d)", Pattern.CASE_INSENSITIVE);

    private Units() {
    }

    public static long parseBytes(String text) {
        Matcher m = BYTES.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: " + text);
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "b" : m.group(2).toLowerCase(Locale.ROOT);
        long factor = switch (unit) {
            case "b" -> 1L;
            case "k", "kb" -> 1000L;
            case "ki", "kib" -> 1024L;
            case "m", "mb" -> 1000L * 1000;
            case "mi", "mib" -> 1024L * 1024;
            case "g", "gb" -> 1000L * 1000 * 1000;
            case "gi", "gib" -> 1024L * 1024 * 1024;
            case "t", "tb" -> 1000L * 1000 * 1000 * 1000;
            case "ti", "tib" -> 1024L * 1024 * 1024 * 1024;
            default -> throw new IllegalArgumentException("unknown unit: " + unit);
        };
        return Math.multiplyExact(n, factor);
    }

    public static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: " + text);
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "min" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            case "d" -> Duration.ofDays(n);
            default -> throw new IllegalArgumentException("unknown unit in " + text);
        };
    }
}
