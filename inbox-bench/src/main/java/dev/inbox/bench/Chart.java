package dev.inbox.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The drain figures as a PNG: one panel per database (columns) and batch size (rows), jobs per
 * second against workers, a colour per claim form, the engine solid and plain JDBC dashed.
 */
final class Chart {
    private static final int PANEL_WIDTH = 520;
    private static final int PANEL_HEIGHT = 380;
    private static final Map<String, Color> FORM_COLOURS = Map.of("lease", new Color(0x1f77b4),
            "rowlock", new Color(0xd62728), "advisory", new Color(0x2ca02c));
    private static final BasicStroke SOLID = new BasicStroke(2.2f);
    private static final BasicStroke DASHED = new BasicStroke(2.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER,
            10f, new float[] {7f, 5f}, 0f);

    private Chart() {}

    static void drains(List<Results.Throughput> drains, Path file) throws IOException {
        List<String> dbs = drains.stream().map(Results.Throughput::db).distinct().toList();
        List<Integer> batches = drains.stream().map(Results.Throughput::batch).distinct().sorted().toList();
        BufferedImage image = new BufferedImage(PANEL_WIDTH * dbs.size(), PANEL_HEIGHT * batches.size(),
                BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        for (int row = 0; row < batches.size(); row++) {
            for (int column = 0; column < dbs.size(); column++) {
                String db = dbs.get(column);
                int batch = batches.get(row);
                List<Results.Throughput> figures = drains.stream()
                        .filter(t -> t.db().equals(db) && t.batch() == batch).toList();
                panel(db, batch, figures).draw(g, new Rectangle2D.Double(column * PANEL_WIDTH, row * PANEL_HEIGHT,
                        PANEL_WIDTH, PANEL_HEIGHT));
            }
        }
        g.dispose();
        ImageIO.write(image, "png", file.toFile());
    }

    private static JFreeChart panel(String db, int batch, List<Results.Throughput> figures) {
        XYSeriesCollection dataset = new XYSeriesCollection();
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (String form : figures.stream().map(Results.Throughput::form).distinct().toList()) {
            XYSeries engine = new XYSeries(form + " engine");
            XYSeries baseline = new XYSeries(form + " plain JDBC");
            for (Results.Throughput t : figures) {
                if (t.form().equals(form)) {
                    engine.add(t.workers(), t.jobsPerS());
                    baseline.add(t.workers(), t.baselineJobsPerS());
                }
            }
            Color colour = FORM_COLOURS.getOrDefault(form, Color.DARK_GRAY);
            for (XYSeries series : List.of(engine, baseline)) {
                int index = dataset.getSeriesCount();
                dataset.addSeries(series);
                renderer.setSeriesPaint(index, colour);
                renderer.setSeriesStroke(index, series == engine ? SOLID : DASHED);
            }
        }
        LogAxis workers = new LogAxis("workers");
        workers.setBase(2);
        workers.setTickUnit(new NumberTickUnit(2)); // in powers of the base: 1, 4, 16
        workers.setNumberFormatOverride(new DecimalFormat("0"));
        workers.setRange(0.8, 20);
        NumberAxis jobs = new NumberAxis("jobs per second");
        jobs.setAutoRangeIncludesZero(true);
        XYPlot plot = new XYPlot(dataset, workers, jobs, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart("drain: " + db + ", batch " + batch, JFreeChart.DEFAULT_TITLE_FONT, plot,
                true);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }
}
