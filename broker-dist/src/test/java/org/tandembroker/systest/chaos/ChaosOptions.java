package org.tandembroker.systest.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One soak's settings.
 *
 * @param topology        the group
 * @param durability      the store's durability triplet, or null for the default ({@code NO_SYNC,NO_SYNC,SIMPLE_MAJORITY})
 * @param seed            the fault plan's seed (printed; replay with {@code --seed})
 * @param duration        the fault phase: no new fault step starts after this much time from the first (the
 *                        group's start-up before it and the final checks after it come on top)
 * @param maxFaults       at most this many steps
 * @param reportDirectory where the report file goes
 */
public record ChaosOptions(ChaosTopology topology, String durability, long seed, Duration duration, int maxFaults,
                           Path reportDirectory) {
    /** The durability policies the soak knows the guarantees of. */
    static final List<String> DURABILITIES = List.of("NO_SYNC,NO_SYNC,SIMPLE_MAJORITY", "SYNC,SYNC,ALL",
            ChaosSoak.LOSSY_DURABILITY);

    public ChaosOptions {
        Objects.requireNonNull(topology);
        if (durability != null) {
            durability = durability.toUpperCase(Locale.ROOT).replace(" ", "");
            if (durability.equals("DEFAULT")) {
                durability = null;
            } else if (!DURABILITIES.contains(durability)) {
                throw new IllegalArgumentException("durability " + durability + ": one of default, "
                        + String.join(", ", DURABILITIES));
            }
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration " + duration + ": must be positive");
        }
        if (maxFaults < 1) {
            throw new IllegalArgumentException("maxFaults " + maxFaults + ": at least 1");
        }
    }

    String durabilityLabel() {
        return durability == null ? "default" : durability;
    }

    /** {@code 30m}, {@code 90s}, {@code 2h}, or an ISO-8601 duration ({@code PT30M}). */
    public static Duration parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("pt")) {
                return Duration.parse(t.toUpperCase(Locale.ROOT));
            }
            long amount = Long.parseLong(t.substring(0, t.length() - 1));
            return switch (t.charAt(t.length() - 1)) {
                case 's' -> Duration.ofSeconds(amount);
                case 'm' -> Duration.ofMinutes(amount);
                case 'h' -> Duration.ofHours(amount);
                default -> throw new IllegalArgumentException();
            };
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("duration " + text + ": e.g. 90s, 30m, 2h", e);
        }
    }
}
