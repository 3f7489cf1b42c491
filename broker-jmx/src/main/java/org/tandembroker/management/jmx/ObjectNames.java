package org.tandembroker.management.jmx;

import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/** The names of Tandem's MBeans. */
public final class ObjectNames {
    /** The spec's domain, kept for the BDBHAMessageStore MBean so that operators' existing scripts work. */
    public static final String QPID_DOMAIN = "org.apache.qpid";
    public static final String TANDEM_DOMAIN = "org.tandembroker";
    /** Where Micrometer's JMX registry puts the metrics. */
    public static final String METRICS_DOMAIN = "org.tandembroker.metrics";

    private ObjectNames() {
    }

    /** {@code org.apache.qpid:type=BDBHAMessageStore,name=<virtual host>} (spec 1.6.8). */
    public static ObjectName replicatedStore(String virtualHost) {
        return name(QPID_DOMAIN + ":type=BDBHAMessageStore,name=" + value(virtualHost));
    }

    /** {@code org.tandembroker:type=VirtualHost,name=<virtual host>}. */
    public static ObjectName virtualHost(String virtualHost) {
        return name(TANDEM_DOMAIN + ":type=VirtualHost,name=" + value(virtualHost));
    }

    /** {@code org.tandembroker:type=Queue,virtualHost=<virtual host>,name=<queue>}. */
    public static ObjectName queue(String virtualHost, String queue) {
        return name(TANDEM_DOMAIN + ":type=Queue,virtualHost=" + value(virtualHost) + ",name=" + value(queue));
    }

    /** {@code org.tandembroker:type=Backup,name=<virtual host>} (hot backups of a JE store). */
    public static ObjectName backup(String virtualHost) {
        return name(TANDEM_DOMAIN + ":type=Backup,name=" + value(virtualHost));
    }

    /** {@code org.tandembroker:type=DiskWatermark}. */
    public static ObjectName diskWatermark() {
        return name(TANDEM_DOMAIN + ":type=DiskWatermark");
    }

    /** {@code org.tandembroker:type=Permissions}. */
    public static ObjectName permissions() {
        return name(TANDEM_DOMAIN + ":type=Permissions");
    }

    /** A name as it is when it is a valid ObjectName value, quoted otherwise. */
    static String value(String name) {
        for (char c : name.toCharArray()) {
            if (c == ',' || c == '=' || c == ':' || c == '"' || c == '*' || c == '?' || c == '\n' || c == '\\') {
                return ObjectName.quote(name);
            }
        }
        return name;
    }

    private static ObjectName name(String text) {
        try {
            return new ObjectName(text);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException(text + ": " + e.getMessage(), e);
        }
    }
}
