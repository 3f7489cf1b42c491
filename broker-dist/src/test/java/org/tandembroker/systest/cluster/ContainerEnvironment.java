package org.tandembroker.systest.cluster;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/**
 * What the container system tests need from the machine: a Docker engine, the local base image and the
 * assembled broker ({@code broker-dist/target/lib}).
 *
 * <p>{@link #requireDocker()} is the one gate: without an engine the tests are skipped on a developer's machine
 * but <em>fail</em> when the environment variable {@code CI} is set, so that a CI machine without Docker cannot
 * pass silently. {@code .ci/run} starts an engine and builds the image before {@code mvn -B verify}.
 *
 * <p>No image registry is assumed to be reachable: the base image is built locally by
 * {@code src/test/docker/build-base-image.sh} (this class runs it when the image is missing or was built by an
 * older version of the script), and Testcontainers must neither start Ryuk nor run its start-up checks
 * ({@code TESTCONTAINERS_RYUK_DISABLED=true}, {@code TESTCONTAINERS_CHECKS_DISABLE=true}), nor look for the
 * engine's address with a helper container when the tests run inside a container themselves
 * ({@code TESTCONTAINERS_HOST_OVERRIDE=localhost}). {@code .ci/run} and the failsafe configuration set all three.
 */
public final class ContainerEnvironment {
    /** Overrides the base image (system property, then environment variable {@code TANDEM_BASE_IMAGE}). */
    public static final String BASE_IMAGE_PROPERTY = "tandem.baseImage";
    public static final String DEFAULT_BASE_IMAGE = "tandem-base:1";
    static final String RECIPE_LABEL = "org.tandembroker.base.recipe";

    private static volatile String verifiedImage;

    static {
        quietContainerLogging();
    }

    private ContainerEnvironment() {
    }

    /** Whether the environment variable {@code CI} says this is a CI run (set and not "false"). */
    public static boolean isCi() {
        String ci = System.getenv("CI");
        return ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false");
    }

    /**
     * Returns when a Docker engine answers. Without one: skips the calling test (JUnit assumption) outside CI,
     * fails it when {@code CI} is set.
     */
    public static void requireDocker() {
        if (Files.exists(Path.of("/.dockerenv")) && System.getenv("TESTCONTAINERS_HOST_OVERRIDE") == null) {
            // Inside a container Testcontainers would otherwise pull alpine to find the engine's address.
            throw new IllegalStateException("these tests run inside a container: set TESTCONTAINERS_HOST_OVERRIDE="
                    + "localhost (with TESTCONTAINERS_RYUK_DISABLED=true and TESTCONTAINERS_CHECKS_DISABLE=true; "
                    + "mvn verify and .ci/run set all three)");
        }
        boolean available = DockerClientFactory.instance().isDockerAvailable();
        if (available) {
            return;
        }
        if (isCi()) {
            throw new AssertionError("CI is set but no Docker engine answers: the container system tests cannot "
                    + "run. .ci/run starts one (.ci/ensure-docker: apt-get install docker.io; dockerd "
                    + "--storage-driver=vfs)");
        }
        assumeTrue(false, "no Docker engine answers: container system tests skipped (outside CI only; "
                + "start one with .ci/ensure-docker)");
    }

    /**
     * Returns when the assembled broker ({@link #brokerLib()}) holds the JMX management module
     * ({@code broker-jmx-*.jar}), which scenarios that designate a primary need; otherwise skips the calling test
     * (JUnit assumption), CI or not, saying so. broker-dist must depend on broker-jmx for the jar to be there.
     */
    public static void requireBrokerJmx() {
        boolean assembled;
        try (Stream<Path> jars = Files.list(brokerLib())) {
            assembled = jars.anyMatch(p -> p.getFileName().toString().startsWith("broker-jmx-"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + brokerLib(), e);
        }
        assumeTrue(assembled, "no broker-jmx jar in " + brokerLib() + ": this scenario designates a primary over "
                + "JMX and needs the broker-jmx module assembled with the broker (a dependency of broker-dist)");
    }

    /** The base image's name, built first if it is missing or out of date. Requires Docker. */
    public static String baseImage() {
        String image = System.getProperty(BASE_IMAGE_PROPERTY,
                Optional.ofNullable(System.getenv("TANDEM_BASE_IMAGE")).orElse(DEFAULT_BASE_IMAGE));
        if (image.equals(verifiedImage)) {
            return image;
        }
        synchronized (ContainerEnvironment.class) {
            if (!image.equals(verifiedImage)) {
                Path script = moduleDirectory().resolve("src/test/docker/build-base-image.sh");
                String wanted = recipeOf(script);
                if (!wanted.equals(recipeLabel(image).orElse(""))) {
                    runBuildScript(script, image);
                    String built = recipeLabel(image).orElse("(none)");
                    if (!wanted.equals(built)) {
                        throw new IllegalStateException(script + " ran but " + image + " has recipe " + built
                                + ", expected " + wanted);
                    }
                }
                verifiedImage = image;
            }
        }
        return image;
    }

    /** The assembled broker's libraries (system property {@code tandem.lib}, else {@code target/lib}). */
    public static Path brokerLib() {
        Path lib = Path.of(System.getProperty("tandem.lib", moduleDirectory().resolve("target/lib").toString()))
                .toAbsolutePath().normalize();
        boolean hasCore;
        try (Stream<Path> jars = Files.isDirectory(lib) ? Files.list(lib) : Stream.empty()) {
            hasCore = jars.anyMatch(p -> p.getFileName().toString().startsWith("broker-core-"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + lib, e);
        }
        if (!hasCore) {
            throw new IllegalStateException("no assembled broker in " + lib
                    + " (run mvn package first; failsafe runs after it in mvn verify)");
        }
        return lib;
    }

    /** broker-dist's directory: {@code basedir} as Maven's test plugins set it, else the working directory. */
    static Path moduleDirectory() {
        return Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath().normalize();
    }

    /** The first 16 hex digits of the script's SHA-256, as the script labels the image. */
    static String recipeOf(Path script) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(script));
            return HexFormat.of().formatHex(digest).substring(0, 16);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the base image script " + script, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Optional<String> recipeLabel(String image) {
        try {
            InspectImageResponse inspected =
                    DockerClientFactory.lazyClient().inspectImageCmd(image).exec();
            Map<String, String> labels = inspected.getConfig() == null ? null : inspected.getConfig().getLabels();
            return Optional.ofNullable(labels == null ? null : labels.get(RECIPE_LABEL));
        } catch (NotFoundException e) {
            return Optional.empty();
        }
    }

    private static void runBuildScript(Path script, String image) {
        Path log = moduleDirectory().resolve("target/build-base-image.log");
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder builder = new ProcessBuilder(List.of("bash", script.toString()))
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            builder.environment().put("TANDEM_BASE_IMAGE", image);
            Process process = builder.start();
            if (!process.waitFor(10, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(script + " did not finish within 10 minutes; see " + log);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(script + " failed (exit " + process.exitValue() + "):\n"
                        + Files.readString(log));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + script, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building " + image, e);
        }
    }

    /**
     * Without a logback-test.xml, logback logs everything at DEBUG, and docker-java's HTTP client then logs
     * every byte it exchanges with the engine. Loggers a configuration file already sets are left alone.
     */
    private static void quietContainerLogging() {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        Map<String, Level> levels = Map.of(
                "org.testcontainers", Level.INFO,
                "org.testcontainers.shaded", Level.WARN,
                "com.github.dockerjava", Level.WARN,
                "tc", Level.INFO,
                "org.apache.qpid.jms", Level.INFO,
                "io.netty", Level.INFO);
        levels.forEach((name, level) -> {
            ch.qos.logback.classic.Logger logger = context.getLogger(name);
            if (logger.getLevel() == null) {
                logger.setLevel(level);
            }
        });
    }
}
