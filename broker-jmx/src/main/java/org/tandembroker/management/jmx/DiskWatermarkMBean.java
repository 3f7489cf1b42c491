package org.tandembroker.management.jmx;

/**
 * The disk-space watermark ({@code org.tandembroker:type=DiskWatermark}). Changing it applies at once and lasts
 * until the broker restarts (then {@code <management><disk watermark>} of the broker file applies again).
 */
public interface DiskWatermarkMBean {

    /** Bytes the store must still be able to write for publishes to be accepted; 0 = off. */
    long getWatermark();

    /** Sets the watermark in bytes (0 switches it off) and checks every store against it at once. */
    void setWatermark(long bytes);

    /** How often the stores' figures are read. */
    long getCheckIntervalMillis();

    /** The virtual hosts whose stores are below the watermark now. */
    String[] getLowVirtualHosts();
}
