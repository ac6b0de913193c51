package dev.inbox.sample.it;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metrics OpenTelemetry's logging exporter last wrote into a server's messages.log: one line
 * per metric per export ({@code metric: ImmutableMetricData{... name=..., unit=..., ... points=[...]}}),
 * read back as points with their attributes and value (sums, gauges) or count (histograms).
 */
final class ExportedMetrics {
    private static final Pattern POINT = Pattern.compile("attributes=\\{([^}]*)\\}, value=([0-9.E-]+)");
    private static final Pattern HISTOGRAM_POINT = Pattern.compile(
            "getAttributes=\\{([^}]*)\\}, getSum=([0-9.E-]+), getCount=(\\d+)");
    private static final Pattern ATTRIBUTE = Pattern.compile("([\\w.]+)=\"([^\"]*)\"");

    /** One point: its attributes and value. */
    record Point(Map<String, String> attributes, double value) {}

    private final String log;

    ExportedMetrics(String messagesLog) {
        this.log = messagesLog;
    }

    /** The line of the last export of {@code name}; null when none was exported yet. */
    String lastLine(String name) {
        int found = log.lastIndexOf(", name=" + name + ", ");
        if (found < 0) {
            return null;
        }
        int start = log.lastIndexOf('\n', found) + 1;
        int end = log.indexOf('\n', found);
        return log.substring(start, end < 0 ? log.length() : end);
    }

    /** The points of the last export of {@code name} (sums and gauges); empty when none was exported. */
    List<Point> points(String name) {
        String line = lastLine(name);
        List<Point> points = new ArrayList<>();
        if (line == null) {
            return points;
        }
        Matcher point = POINT.matcher(line);
        while (point.find()) {
            points.add(new Point(attributes(point.group(1)), Double.parseDouble(point.group(2))));
        }
        return points;
    }

    /** How many values the points of histogram {@code name} with every attribute of {@code attributes} hold. */
    long histogramCount(String name, Map<String, String> attributes) {
        String line = lastLine(name);
        long count = 0;
        Matcher point = HISTOGRAM_POINT.matcher(line == null ? "" : line);
        while (point.find()) {
            if (attributes(point.group(1)).entrySet().containsAll(attributes.entrySet())) {
                count += Long.parseLong(point.group(3));
            }
        }
        return count;
    }

    private static Map<String, String> attributes(String text) {
        Map<String, String> attributes = new LinkedHashMap<>();
        Matcher attribute = ATTRIBUTE.matcher(text);
        while (attribute.find()) {
            attributes.put(attribute.group(1), attribute.group(2));
        }
        return attributes;
    }

    /** The value of {@code name}'s point with every attribute of {@code attributes}; null when it has none. */
    Double value(String name, Map<String, String> attributes) {
        return points(name).stream()
                .filter(p -> p.attributes().entrySet().containsAll(attributes.entrySet()))
                .map(Point::value).findFirst().orElse(null);
    }
}
