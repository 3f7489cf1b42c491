package org.tandembroker.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusUtil;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.security.AccessRules;
import org.tandembroker.core.security.PasswordHash;
import org.tandembroker.core.security.Permission;
import org.tandembroker.core.security.ScramMechanism;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.security.ManagementRole;
import org.tandembroker.core.security.UsersFile;

/** The files in etc/ that a new installation starts with. */
class ShippedConfigurationTest {

    /** Tests run in the module directory. */
    static final Path ETC = Path.of("..", "etc").toAbsolutePath().normalize();

    @Test
    void shippedBrokerFileLoadsWithOnePlainListenerOnPort5672() throws ConfigException {
        BrokerConfig config = BrokerConfigLoader.load(ETC.resolve("broker.xml"));

        assertThat(config.listeners()).containsExactly(new ListenerConfig("amqp", "0.0.0.0", 5672, Optional.empty()));
        assertThat(config.usersFile()).isEqualTo(ETC.resolve("users"));
        assertThat(config.anonymousEnabled()).isFalse();
        assertThat(config.limits()).isEqualTo(ConnectionLimits.DEFAULTS);
        assertThat(config.messageMemoryBudget()).isEqualTo(BrokerConfigLoader.defaultMessageBudget());
        assertThat(config.defaultVirtualHost()).isEqualTo("default");
        assertThat(config.virtualHosts()).extracting(VirtualHostConfig::sourceFile)
                .containsExactly(ETC.resolve("vhosts/default.xml"));
    }

    @Test
    void shippedBrokerFileWarmsUpForAtMostFortySecondsUnlessTandemWarmUpSaysOtherwise() throws ConfigException {
        assertThat(BrokerConfigLoader.load(ETC.resolve("broker.xml"), java.util.Map.of(), ConfigVariables.NONE)
                .warmUp()).isEqualTo(java.time.Duration.ofSeconds(40));
    }

    @Test
    void shippedBrokerFileServesJmxOnPort9001AndKeepsMetricsOff() throws ConfigException {
        ManagementConfig management = BrokerConfigLoader.load(ETC.resolve("broker.xml")).management();

        assertThat(management.jmx()).isEqualTo(
                new ManagementConfig.Jmx(true, "0.0.0.0", 9001, Optional.empty(), Optional.empty()));
        assertThat(management.metrics().enabled()).isFalse();
        assertThat(management.diskWatermark().freeBytes()).isEqualTo(512L * 1024 * 1024);
    }

    @Test
    void shippedPermissionsLetGuestDoEverythingAndNobodyElseAnything() throws ConfigException {
        BrokerConfig config = BrokerConfigLoader.load(ETC.resolve("broker.xml"));
        AccessRules rules = AccessRules.load(config.security().permissionsFile().orElseThrow());

        assertThat(config.security().allowPlainWithoutTls()).isFalse();
        for (Permission permission : Permission.values()) {
            assertThat(rules.allows("guest", permission, "any.address/at.all")).isTrue();
            assertThat(rules.allows("someone-else", permission, "any.address")).isFalse();
        }
    }

    @Test
    void shippedUsersFileGivesGuestScramCredentialsForPasswordGuest() throws ConfigException {
        PasswordHash guest = UsersFile.load(ETC.resolve("users")).user("guest").orElseThrow().passwordHash();

        assertThat(guest.plainOnly()).isFalse();
        assertThat(guest.scram(ScramMechanism.SHA_512)).isPresent();
        assertThat(guest.matches("guest".toCharArray())).isTrue();
    }

    @Test
    void shippedUsersFileGivesGuestNoJmxRole() throws ConfigException {
        UsersFile users = UsersFile.load(ETC.resolve("users"));

        assertThat(users.user("guest").orElseThrow().managementRole()).isEqualTo(ManagementRole.NONE);
    }

    @Test
    void shippedDefaultVirtualHostUsesACoalescingBdbStoreAndADeadLetterQueue() throws ConfigException {
        VirtualHostConfig vhost = VirtualHostConfigLoader.load(ETC.resolve("vhosts/default.xml"));

        assertThat(vhost.name()).isEqualTo("default");
        assertThat(vhost.store().type()).isEqualTo("bdb");
        assertThat(vhost.store().text("storePath")).contains("default/store");
        assertThat(vhost.store().text("durability")).contains("NO_SYNC");
        assertThat(vhost.store().bool("coalescingSync", false)).isTrue();
        assertThat(vhost.autoCreateQueues()).isTrue();
        assertThat(vhost.queueDefaults().maxDeliveries()).isEqualTo(10);
        assertThat(vhost.queueDefaults().deadLetterQueue()).isEqualTo("DLQ");
        assertThat(vhost.queues()).containsExactly(new QueueConfig("DLQ", true, 0, 0, 0, 0, null));
    }

    @Test
    void shippedLogbackFileConfiguresWithoutErrorsAndWritesToTheWorkDirectory(@TempDir Path work)
            throws JoranException {
        LoggerContext context = new LoggerContext();
        try {
            context.putProperty("tandem.work", work.toString());
            JoranConfigurator configurator = new JoranConfigurator();
            configurator.setContext(context);
            configurator.doConfigure(ETC.resolve("logback.xml").toFile());

            assertThat(new StatusUtil(context).getHighestLevel(0)).isLessThan(Status.WARN);
            assertThat(context.getLogger("tandem.oplog").getLevel()).isEqualTo(Level.INFO);
            assertThat(context.getLogger("com.sleepycat.je").getEffectiveLevel()).isEqualTo(Level.WARN);
            RollingFileAppender<?> file = (RollingFileAppender<?>) context.getLogger("ROOT").getAppender("FILE");
            assertThat(Path.of(file.getFile())).isEqualTo(work.resolve("log/broker.log"));
        } finally {
            context.stop();
        }
    }
}
