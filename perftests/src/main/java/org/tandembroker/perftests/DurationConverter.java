package org.tandembroker.perftests;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Durations on the command line as the broker's files write them: {@code 500ms}, {@code 20s}, {@code 5min},
 * {@code 1h}; a bare number is seconds.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|min|m|h)?");

    @Override
    public Duration convert(String value) {
        Matcher m = DURATION.matcher(value.trim());
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a duration; examples: 500ms, 20s, 5min, 1h");
        }
        double amount = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double millis = switch (unit) {
            case "ms" -> amount;
            case "s" -> amount * 1_000;
            case "min", "m" -> amount * 60_000;
            default -> amount * 3_600_000;
        };
        return Duration.ofMillis(Math.round(millis));
    }
}
