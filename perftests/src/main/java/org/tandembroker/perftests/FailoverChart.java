package org.tandembroker.perftests;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * {@code failover.png}: the time from the kill or designation to the first message on the new master, against
 * the queue depth, one line per (group size, message size), drawn with XChart without a display. The issue's
 * targets are marked as points of their own at 500,000 messages. Cells that were skipped, failed or received
 * nothing have no point (the table lists them).
 */
public final class FailoverChart {

    /** A point of a series: queued messages, seconds to the first message. */
    public record Point(long depth, double seconds) {
    }

    private FailoverChart() {
    }

    /**
     * The series to draw, in the order of the results: {@code 2 nodes, 2 KiB (from designation)} and the like,
     * each with its measured points by depth.
     */
    public static Map<String, List<Point>> series(List<FailoverResult> results) {
        Map<String, List<Point>> series = new LinkedHashMap<>();
        for (FailoverResult r : results) {
            if (r.status() != FailoverResult.Status.MEASURED || r.toFirst().isEmpty()) {
                continue;
            }
            FailoverCell cell = r.cell();
            String name = cell.nodes() + " nodes, " + ByteSizeConverter.format(cell.bodySize()) + " (from "
                    + cell.measuredFrom() + ")";
            series.computeIfAbsent(name, n -> new ArrayList<>())
                    .add(new Point(cell.depth(), r.toFirst().get().toNanos() / 1e9));
        }
        series.values().forEach(points -> points.sort((a, b) -> Long.compare(a.depth(), b.depth())));
        return series;
    }

    /** The targets of the cells in {@code results}, by name: {@code target, 2 nodes} at (500,000, 2 s). */
    static Map<String, Point> targets(List<FailoverResult> results) {
        Map<String, Point> targets = new LinkedHashMap<>();
        for (FailoverResult r : results) {
            r.cell().target().ifPresent(bound -> targets.put("target, " + r.cell().nodes() + " nodes",
                    new Point(r.cell().depth(), bound.toNanos() / 1e9)));
        }
        return targets;
    }

    /** Writes the chart as PNG; returns false (and writes nothing) when no cell has a point to draw. */
    public static boolean write(List<FailoverResult> results, Path png) throws IOException {
        Map<String, List<Point>> series = series(results);
        if (series.isEmpty()) {
            return false;
        }
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(900).height(560)
                .title("Failover: time to the first message on the new master")
                .xAxisTitle("messages queued when the master was killed")
                .yAxisTitle("seconds (from the designation, or the kill)").build();
        Styler styler = chart.getStyler();
        styler.setLegendPosition(Styler.LegendPosition.InsideNW);
        styler.setMarkerSize(8);
        chart.getStyler().setXAxisDecimalPattern("#,###");
        chart.getStyler().setYAxisMin(0.0);
        series.forEach((name, points) -> {
            XYSeries s = chart.addSeries(name, points.stream().mapToDouble(Point::depth).toArray(),
                    points.stream().mapToDouble(Point::seconds).toArray());
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
            s.setMarker(SeriesMarkers.CIRCLE);
        });
        targets(results).forEach((name, point) -> {
            XYSeries s = chart.addSeries(name, new double[] {point.depth()}, new double[] {point.seconds()});
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            s.setMarker(SeriesMarkers.DIAMOND);
        });
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
        return true;
    }
}
