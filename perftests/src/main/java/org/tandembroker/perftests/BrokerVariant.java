package org.tandembroker.perftests;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A broker build, JVM options and JE parameters under test, so that one command compares them side by side: the
 * benchmarks run every variant in turn within each round ({@code --variant NAME=OPTIONS}, {@code --variant-lib
 * NAME=DIR}). Among a variant's options, {@code je.NAME=VALUE} is a JE parameter of its stores ({@code je.rep.*} a
 * replicated node's {@code <repConfig>}, the others {@code <envConfig>}); anything else is a JVM option.
 *
 * @param name          a letter or digit, then letters, digits, '.', '_' or '-'; names the variant in tables, file
 *                      names and configuration ids
 * @param lib           the assembled broker's libraries this variant runs
 * @param commonOptions the JVM options of every variant's broker processes ({@code --broker-jvm-option})
 * @param ownOptions    the JVM options this variant adds after them
 * @param jeParameters  the JE parameters ({@code je.NAME=VALUE}) this variant adds to its stores' configuration
 */
public record BrokerVariant(String name, Path lib, List<String> commonOptions, List<String> ownOptions,
                            List<String> jeParameters) {
    private static final String NAME = "[A-Za-z0-9][A-Za-z0-9_.-]*";
    private static final String JE_PARAMETER = "je\\.[A-Za-z0-9_.]+=.*";
    private static final String REPLICATION_PREFIX = "je.rep.";

    public BrokerVariant {
        if (!name.matches(NAME)) {
            throw new IllegalArgumentException("a variant's name is a letter or digit, then letters, digits, '.', '_'"
                    + " or '-', not '" + name + "'");
        }
        commonOptions = List.copyOf(commonOptions);
        ownOptions = List.copyOf(ownOptions);
        jeParameters = List.copyOf(jeParameters);
    }

    /** A variant without JE parameters of its own. */
    public BrokerVariant(String name, Path lib, List<String> commonOptions, List<String> ownOptions) {
        this(name, lib, commonOptions, ownOptions, List.of());
    }

    /** This variant's JE parameters for every store's {@code <envConfig>}: all but {@code je.rep.*}. */
    public List<String> envConfig() {
        return jeParameters.stream().filter(p -> !p.startsWith(REPLICATION_PREFIX)).toList();
    }

    /** This variant's JE replication parameters ({@code je.rep.*}) for a replicated node's {@code <repConfig>}. */
    public List<String> repConfig() {
        return jeParameters.stream().filter(p -> p.startsWith(REPLICATION_PREFIX)).toList();
    }

    /** Every JVM option of this variant's broker processes: the common ones, then its own. */
    public List<String> jvmOptions() {
        List<String> options = new ArrayList<>(commonOptions);
        options.addAll(ownOptions);
        return List.copyOf(options);
    }

    /**
     * Its name, library, every JVM option and its JE parameters, for the results: {@code `name`: lib `DIR`, broker
     * JVM options `...`[, JE parameters `...`]}.
     */
    public String describe() {
        List<String> options = jvmOptions();
        return String.format(Locale.ROOT, "`%s`: lib `%s`, broker JVM options `%s`%s", name, lib,
                options.isEmpty() ? "(none)" : String.join(" ", options),
                jeParameters.isEmpty() ? "" : ", JE parameters `" + String.join(" ", jeParameters) + "`");
    }

    /**
     * The variants of a command line, in the order given.
     *
     * @param specs         each {@code --variant NAME=OPTIONS} (space-separated, possibly none: JVM options and
     *                      {@code je.NAME=VALUE} JE parameters)
     * @param libSpecs      each {@code --variant-lib NAME=DIR}: the build a variant runs instead of {@code lib}
     * @param lib           the build of every variant without its own
     * @param commonOptions the JVM options of every variant, before its own
     * @throws IllegalArgumentException naming the option at fault: a malformed pair, a name given twice, a library
     *                                  for a variant no {@code --variant} defines, or one that is not a directory
     */
    public static List<BrokerVariant> parse(List<String> specs, List<String> libSpecs, Path lib,
                                            List<String> commonOptions) {
        Map<String, Path> libs = new LinkedHashMap<>();
        for (String pair : libSpecs) {
            String[] nameValue = nameValue(pair, "--variant-lib");
            Path directory = Path.of(nameValue[1]);
            if (!Files.isDirectory(directory)) {
                throw new IllegalArgumentException("--variant-lib " + pair + ": " + directory
                        + " is not a directory (an assembled broker's lib/)");
            }
            if (libs.put(nameValue[0], directory) != null) {
                throw new IllegalArgumentException("--variant-lib: '" + nameValue[0] + "' is named twice");
            }
        }
        List<BrokerVariant> variants = new ArrayList<>();
        for (String pair : specs) {
            String[] nameValue = nameValue(pair, "--variant");
            if (variants.stream().anyMatch(v -> v.name().equals(nameValue[0]))) {
                throw new IllegalArgumentException("--variant: '" + nameValue[0] + "' is named twice");
            }
            List<String> tokens = Arrays.stream(nameValue[1].trim().split("\\s+")).filter(o -> !o.isEmpty()).toList();
            variants.add(new BrokerVariant(nameValue[0], libs.getOrDefault(nameValue[0], lib), commonOptions,
                    tokens.stream().filter(t -> !t.matches(JE_PARAMETER)).toList(),
                    tokens.stream().filter(t -> t.matches(JE_PARAMETER)).toList()));
        }
        for (String name : libs.keySet()) {
            if (variants.stream().noneMatch(v -> v.name().equals(name))) {
                throw new IllegalArgumentException("--variant-lib names '" + name + "', which no --variant defines");
            }
        }
        return List.copyOf(variants);
    }

    private static String[] nameValue(String pair, String option) {
        int eq = pair.indexOf('=');
        if (eq <= 0 || !pair.substring(0, eq).matches(NAME)) {
            throw new IllegalArgumentException(option + " must read NAME=VALUE with a name of a letter or digit, then"
                    + " letters, digits, '.', '_' or '-', not '" + pair + "'");
        }
        return new String[] {pair.substring(0, eq), pair.substring(eq + 1)};
    }
}
