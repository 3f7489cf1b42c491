package org.tandembroker.management.jmx;

import java.lang.management.ManagementFactory;
import java.lang.management.PlatformManagedObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanRegistrationException;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.vhost.ManagedVirtualHost;
import org.tandembroker.management.disk.DiskSpaceGuard;
import org.tandembroker.management.store.LatestFigures;

/**
 * The broker's MBean server and the beans in it: the JVM's platform MXBeans (memory, threads, ... for jconsole),
 * the BDBHAMessageStore bean of each virtual host whose store offers replication control, the backup bean of each
 * whose store offers hot backups, a bean per virtual host and per queue, and the disk watermark. Each broker has its
 * own MBean server (not the JVM's platform server), so two brokers in one JVM (tests) do not clash over the spec's
 * fixed names.
 *
 * <p><b>Threads.</b> {@link #bind}, {@link #sync} and {@link #close} run on the management sampler thread (close
 * after it stopped), which owns the registered-bean maps; the MBean server itself is thread-safe.
 */
public final class ManagementBeans implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ManagementBeans.class);

    private final MBeanServer server = MBeanServerFactory.newMBeanServer();
    private final LatestFigures figures;
    private final DiskSpaceGuard guard;
    private final List<ObjectName> registered = new ArrayList<>();
    private final Map<String, Map<String, QueueBean>> queueBeans = new HashMap<>();

    public ManagementBeans(LatestFigures figures, DiskSpaceGuard guard) {
        this.figures = figures;
        this.guard = guard;
        registerPlatformBeans();
    }

    public MBeanServer server() {
        return server;
    }

    /** Registers the disk watermark bean. {@code checkNow} re-checks every store and returns when it did. */
    public void bindDiskWatermark(long checkIntervalMillis, List<ManagedVirtualHost> hosts, Runnable checkNow) {
        register(DiskWatermarkBean.described(new DiskWatermarkBean(guard, checkIntervalMillis, hosts, checkNow)),
                ObjectNames.diskWatermark());
    }

    /** Registers the permissions bean (the reload of the permissions file). */
    public void bindPermissions(org.tandembroker.core.security.AccessControl accessControl) {
        register(PermissionsBean.described(new PermissionsBean(accessControl)), ObjectNames.permissions());
    }

    /**
     * Registers a virtual host's beans, and those of what its store offers: the spec's store bean for replication
     * control, the backup bean for hot backups. Called once the host has started, so it has a store; what a store
     * offers depends on its type only, which a reactivated host's new store shares.
     */
    public void bind(ManagedVirtualHost host) {
        register(VirtualHostBean.described(new VirtualHostBean(host, figures, guard)),
                ObjectNames.virtualHost(host.name()));
        Optional<MessageStore> store = host.store();
        if (store.flatMap(MessageStore::replication).isPresent()) {
            register(ReplicatedStoreBean.described(new ReplicatedStoreBean(host, figures, guard)),
                    ObjectNames.replicatedStore(host.name()));
        }
        if (store.flatMap(MessageStore::hotBackup).isPresent()) {
            register(BackupBean.described(new BackupBean(host)), ObjectNames.backup(host.name()));
        }
    }

    /** Registers beans of new queues and unregisters those of queues that are gone or were replaced. */
    public void sync(ManagedVirtualHost host) {
        Map<String, QueueBean> known = queueBeans.computeIfAbsent(host.name(), n -> new HashMap<>());
        Map<String, BrokerQueue> current = host.queues();
        known.entrySet().removeIf(entry -> {
            if (current.get(entry.getKey()) != entry.getValue().queue()) {
                unregister(ObjectNames.queue(host.name(), entry.getKey()));
                return true;
            }
            return false;
        });
        for (Map.Entry<String, BrokerQueue> entry : current.entrySet()) {
            if (!known.containsKey(entry.getKey())) {
                QueueBean bean = new QueueBean(host.name(), entry.getValue());
                if (register(QueueBean.described(bean), ObjectNames.queue(host.name(), entry.getKey()))) {
                    known.put(entry.getKey(), bean);
                }
            }
        }
    }

    private boolean register(Object bean, ObjectName name) {
        try {
            server.registerMBean(bean, name);
            registered.add(name);
            return true;
        } catch (JMException e) {
            LOG.warn("Cannot register MBean {}: {}", name, e.toString());
            return false;
        }
    }

    private void unregister(ObjectName name) {
        try {
            server.unregisterMBean(name);
        } catch (InstanceNotFoundException | MBeanRegistrationException e) {
            // already gone
        }
        registered.remove(name);
    }

    private void registerPlatformBeans() {
        for (Class<? extends PlatformManagedObject> type : ManagementFactory.getPlatformManagementInterfaces()) {
            try {
                for (PlatformManagedObject bean : ManagementFactory.getPlatformMXBeans(type)) {
                    if (!server.isRegistered(bean.getObjectName())) {
                        server.registerMBean(bean, bean.getObjectName());
                    }
                }
            } catch (JMException | RuntimeException e) {
                LOG.debug("Platform MXBean {} not offered over Tandem's JMX connector: {}", type.getName(),
                        e.toString());
            }
        }
    }

    /** Unregisters every bean this instance registered (the platform beans go with the server). */
    @Override
    public void close() {
        for (ObjectName name : List.copyOf(registered)) {
            unregister(name);
        }
        queueBeans.clear();
    }
}
