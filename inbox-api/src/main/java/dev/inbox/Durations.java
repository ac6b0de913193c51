package dev.inbox;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads durations written as ISO-8601 ({@code PT30S}) or as {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d}. */
public final class Durations {
    private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    private Durations() {}

    /**
     * @throws IllegalArgumentException naming the text and the forms accepted
     */
    public static Duration parse(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(t.toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration: write it as ISO-8601 (PT30S)"
                    + " or as a number with ms, s, m, h or d (500ms, 30s, 5m)");
        }
    }
}
