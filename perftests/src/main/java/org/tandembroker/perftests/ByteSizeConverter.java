package org.tandembroker.perftests;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Byte sizes on the command line as the broker's files write them: {@code 512}, {@code 64KiB}, {@code 100MiB},
 * {@code 4GiB}, {@code 1TiB} (binary units; {@code B} or no unit is bytes). {@link #format} writes them back.
 */
public final class ByteSizeConverter implements CommandLine.ITypeConverter<Long> {
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(B|KiB|MiB|GiB|TiB)?");
    private static final List<String> UNITS = List.of("B", "KiB", "MiB", "GiB", "TiB");

    @Override
    public Long convert(String value) {
        return parse(value);
    }

    /** The number of bytes {@code value} names; a conversion error names the forms allowed. */
    public static long parse(String value) {
        Matcher m = SIZE.matcher(value.trim());
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a byte size; examples: 2048, 64KiB, 100MiB, 4GiB");
        }
        int power = UNITS.indexOf(m.group(2) == null ? "B" : m.group(2));
        return Math.round(Double.parseDouble(m.group(1)) * Math.pow(1024, power));
    }

    /**
     * {@code bytes} in the largest binary unit that keeps the number at least 1: {@code 2 KiB}, {@code 200 KiB},
     * {@code 95.4 GiB}; whole numbers have no decimals, others one.
     */
    public static String format(long bytes) {
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < UNITS.size() - 1) {
            value /= 1024;
            unit++;
        }
        return value == Math.rint(value)
                ? String.format(Locale.ROOT, "%,d %s", (long) value, UNITS.get(unit))
                : String.format(Locale.ROOT, "%.1f %s", value, UNITS.get(unit));
    }
}
