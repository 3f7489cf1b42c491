package org.tandembroker.management.store;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last {@link StoreFigures} read for each virtual host. Written by the management sampler thread, read by any
 * thread (metric scrapes, JMX calls), so that those never call into JE themselves.
 */
public final class LatestFigures {
    private final Map<String, StoreFigures> byHost = new ConcurrentHashMap<>();

    /** The last figures of {@code virtualHost}, or empty figures before the first reading. */
    public StoreFigures of(String virtualHost) {
        StoreFigures figures = byHost.get(virtualHost);
        return figures != null ? figures : StoreFigures.none("UNKNOWN");
    }

    public void put(String virtualHost, StoreFigures figures) {
        byHost.put(virtualHost, figures);
    }
}
