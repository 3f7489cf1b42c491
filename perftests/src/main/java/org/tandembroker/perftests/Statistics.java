package org.tandembroker.perftests;

/** Small summaries of measured figures that several reports share. */
final class Statistics {
    private Statistics() {
    }

    /** The median of {@code sorted} (ascending, not empty): the middle value, or the mean of the two middle ones. */
    static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
