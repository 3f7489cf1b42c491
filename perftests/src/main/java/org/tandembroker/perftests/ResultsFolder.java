package org.tandembroker.perftests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Where a benchmark run leaves its files ({@code perftests/target/results/<timestamp>-<benchmark>/} by default),
 * and the clean-up of the brokers' temporary directories.
 */
public final class ResultsFolder {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    private ResultsFolder() {
    }

    /** The repository root: {@code -Dtandem.home} (set by bin/perftest), else the working directory. */
    public static Path home() {
        return Path.of(System.getProperty("tandem.home", ".")).toAbsolutePath().normalize();
    }

    /** Creates {@code base/<timestamp>-<kind>} ({@code base} defaults to {@code <home>/perftests/target/results}). */
    public static Path create(Path base, String kind) throws IOException {
        Path parent = base != null ? base : home().resolve("perftests/target/results");
        return Files.createDirectories(parent.resolve(LocalDateTime.now().format(STAMP) + "-" + kind));
    }

    /** Deletes {@code directory} and everything under it. */
    public static void deleteTree(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try {
            Files.walkFileTree(directory, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    Files.delete(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + directory, e);
        }
    }
}
