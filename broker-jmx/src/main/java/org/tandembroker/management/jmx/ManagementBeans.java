package org.tandembroker.management.jmx;

import java.lang.management.ManagementFactory;
import java.lang.management.PlatformManagedObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanRegistrationException;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.management.disk.DiskSpaceGuard;
import org.tandembroker.management.store.LatestFigures;
import org.tandembroker.store.bdb.BdbMessageStore;
import org.tandembroker.store.bdbha.ReplicatedMessageStore;

/**
 * The broker's MBean server and the beans in it: the JVM's platform MXBeans (memory, threads, ... for jconsole),
 * the BDBHAMessageStore bean of each virtual host on the HA store, the backup bean of each virtual host on a JE
 * store, a bean per virtual host and per queue, and the disk watermark. Each broker has its own MBean server (not the JVM's platform server), so two brokers in one JVM
 * (tests) do not clash over the spec's fixed names.
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
    public void bindDiskWatermark(long checkIntervalMillis, List<BrokerVirtualHost> hosts, Runnable checkNow) {
        register(DiskWatermarkBean.described(new DiskWatermarkBean(guard, checkIntervalMillis, hosts, checkNow)),
                ObjectNames.diskWatermark());
    }

    /** Registers a virtual host's beans (and the spec's store bean when its store is bdb-ha). */
    public void bind(BrokerVirtualHost host) {
        register(VirtualHostBean.described(new VirtualHostBean(host, figures, guard)),
                ObjectNames.virtualHost(host.name()));
        if (ReplicatedMessageStore.TYPE.equals(host.config().store().type())) {
            register(ReplicatedStoreBean.described(new ReplicatedStoreBean(host, figures, guard)),
                    ObjectNames.replicatedStore(host.name()));
        }
        String storeType = host.config().store().type();
        if (ReplicatedMessageStore.TYPE.equals(storeType) || BdbMessageStore.TYPE.equals(storeType)) {
            register(BackupBean.described(new BackupBean(host)), ObjectNames.backup(host.name()));
        }
    }

    /** Registers beans of new queues and unregisters those of queues that are gone or were replaced. */
    public void sync(BrokerVirtualHost host) {
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
