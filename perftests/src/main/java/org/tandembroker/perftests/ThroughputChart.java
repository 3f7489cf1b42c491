package org.tandembroker.perftests;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler;

/**
 * Throughput against the number of clients, one line per configuration, as a PNG drawn with XChart. The x axis
 * is categorical (N = 1, 2, 4, ... 64 evenly spaced, so a doubling of clients is one step: a log2 axis); a run
 * that failed or did not happen leaves a gap in its line.
 *
 * <p>Threads: static, stateless; AWT runs headless.
 */
public final class ThroughputChart {
    static {
        System.setProperty("java.awt.headless", "true");
    }

    private ThroughputChart() {
    }

    /**
     * Writes {@code file} (a {@code .png}).
     *
     * @param title  the chart's title
     * @param yAxis  the y axis title, e.g. {@code messages/s}
     * @param series per configuration label, one value per entry of {@code clients}, null where not measured
     */
    public static void write(Path file, String title, String yAxis, List<Integer> clients,
                             Map<String, List<Double>> series) throws IOException {
        // The legend goes below the plot, one line per configuration: the height grows with it.
        CategoryChart chart = new CategoryChartBuilder().width(1100).height(560 + 22 * series.size()).title(title)
                .xAxisTitle("producers = consumers (N), each on its own connection").yAxisTitle(yAxis).build();
        CategoryStyler styler = chart.getStyler();
        styler.setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
        styler.setOverlapped(true); // every series on the category's centre line, not side by side like bars
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(Styler.LegendLayout.Vertical);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotGridVerticalLinesVisible(false);
        styler.setYAxisMin(0.0);
        styler.setYAxisDecimalPattern("#,###");
        List<String> categories = clients.stream().map(String::valueOf).toList();
        for (Map.Entry<String, List<Double>> entry : series.entrySet()) {
            List<Double> values = new ArrayList<>(entry.getValue());
            if (values.stream().allMatch(v -> v == null)) {
                continue; // XChart cannot draw a series without a value; the legend would lie anyway
            }
            chart.addSeries(entry.getKey(), categories, values); // the theme varies colour and marker
        }
        if (chart.getSeriesMap().isEmpty()) {
            chart.addSeries("no successful run", categories, categories.stream().map(c -> 0.0).toList());
        }
        String name = file.toString();
        BitmapEncoder.saveBitmap(chart, name.endsWith(".png") ? name.substring(0, name.length() - 4) : name,
                BitmapEncoder.BitmapFormat.PNG);
    }
}
