package org.tandembroker.management;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The operators' interface reaches stores and virtual hosts only through broker-core's interfaces (what a store
 * offers: figures, replication control, hot backup; the managed virtual host), so that it depends on core alone.
 * Read from the compiled classes: a class's constant pool names every class it uses.
 */
class ManagementSeesStoresThroughCoreTest {
    private static final List<String> FORBIDDEN = List.of("org/tandembroker/store/", "com/sleepycat/",
            "org/tandembroker/core/vhost/BrokerVirtualHost");

    @Test
    void noManagementClassNamesAStoreModuleClassAJeClassOrTheConcreteVirtualHost() throws Exception {
        Path classes = Path.of(OperatorsInterface.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> read = new ArrayList<>();
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
                read.add(name);
                String constants = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                FORBIDDEN.stream().filter(constants::contains).forEach(f -> offenders.add(name + " uses " + f));
            }
        }

        assertThat(read).contains("org/tandembroker/management/store/StoreFigureReader.class",
                "org/tandembroker/management/jmx/ReplicatedStoreBean.class",
                "org/tandembroker/management/jmx/BackupBean.class");
        assertThat(offenders).isEmpty();
    }
}
