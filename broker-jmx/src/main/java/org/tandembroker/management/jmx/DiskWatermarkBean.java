package org.tandembroker.management.jmx;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.management.disk.DiskSpaceGuard;

/** {@link DiskWatermarkMBean} over the {@link DiskSpaceGuard}. */
final class DiskWatermarkBean implements DiskWatermarkMBean {
    private static final Logger LOG = LoggerFactory.getLogger(DiskWatermarkBean.class);

    private final DiskSpaceGuard guard;
    private final long checkIntervalMillis;
    private final List<BrokerVirtualHost> hosts;
    private final Runnable checkNow;

    DiskWatermarkBean(DiskSpaceGuard guard, long checkIntervalMillis, List<BrokerVirtualHost> hosts,
                      Runnable checkNow) {
        this.guard = guard;
        this.checkIntervalMillis = checkIntervalMillis;
        this.hosts = List.copyOf(hosts);
        this.checkNow = checkNow;
    }

    static DescribedMBean<DiskWatermarkMBean> described(DiskWatermarkBean bean) {
        return DescribedMBean.of(bean, DiskWatermarkMBean.class, "The disk-space watermark: below it a master "
                        + "refuses publishes",
                Map.of("Watermark", "Bytes a store must still be able to write for publishes to be accepted; 0 = "
                                + "off. A change lasts until the broker restarts",
                        "CheckIntervalMillis", "How often the stores' figures are read",
                        "LowVirtualHosts", "Virtual hosts whose stores are below the watermark"),
                Map.of(), Set.of());
    }

    @Override
    public long getWatermark() {
        return guard.watermark();
    }

    @Override
    public void setWatermark(long bytes) {
        guard.setWatermark(bytes);
        LOG.info("Disk watermark set to {} bytes over JMX (until the broker restarts)", bytes);
        checkNow.run();
    }

    @Override
    public long getCheckIntervalMillis() {
        return checkIntervalMillis;
    }

    @Override
    public String[] getLowVirtualHosts() {
        return hosts.stream().map(BrokerVirtualHost::name).filter(guard::isLow).toArray(String[]::new);
    }
}
