package dev.inbox;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Options of one publish; each needs its column in the table ({@code retry_after} for a delay or a
 * due time, {@code group}, {@code priority}, {@code headers}, the {@link UniqueKey} column for a
 * unique key), and an id is needed when the table's id is not generated. Immutable.
 *
 * <pre>{@code
 * publisher.publish(image, PublishOptions.NONE.delay(Duration.ofMinutes(5)).priority(10));
 * publisher.publish(invoice, PublishOptions.NONE.at(Instant.parse("2027-01-01T08:00:00Z")));
 * if (publisher.publish(sync, PublishOptions.NONE.uniqueKey("sync-" + account)).isDuplicate()) { .. }
 * }</pre>
 */
public final class PublishOptions {
    /** The longest unique key a publish takes, so that a key fits the column README declares (VARCHAR(200)). */
    public static final int MAX_UNIQUE_KEY_LENGTH = 200;

    /** No options. */
    public static final PublishOptions NONE = new PublishOptions(Duration.ZERO, null, null, null, Map.of(), null,
            null, null);

    private final Duration delay;
    private final Instant at;
    private final String group;
    private final Integer priority;
    private final Map<String, String> headers;
    private final Object id;
    private final String uniqueKey;
    private final Duration uniquePeriod;

    private PublishOptions(Duration delay, Instant at, String group, Integer priority, Map<String, String> headers,
            Object id, String uniqueKey, Duration uniquePeriod) {
        this.delay = delay;
        this.at = at;
        this.group = group;
        this.priority = priority;
        this.headers = headers;
        this.id = id;
        this.uniqueKey = uniqueKey;
        this.uniquePeriod = uniquePeriod;
    }

    /** The job becomes due {@code value} after the publish (instead of at a time set by {@link #at}). */
    public PublishOptions delay(Duration value) {
        TimeLimits.delay("a publish delay", Objects.requireNonNull(value, "delay"));
        return new PublishOptions(value, null, group, priority, headers, id, uniqueKey, uniquePeriod);
    }

    /**
     * The job becomes due at {@code time} (instead of after a {@link #delay}); a time already past
     * makes it due at once. Times are judged on the table's clock.
     *
     * @throws IllegalArgumentException for a time before 1970 or after the year 9999
     */
    public PublishOptions at(Instant time) {
        TimeLimits.time("a publish time", Objects.requireNonNull(time, "time"));
        return new PublishOptions(Duration.ZERO, time, group, priority, headers, id,
                uniqueKey, uniquePeriod);
    }

    public PublishOptions group(String value) {
        return new PublishOptions(delay, at, Objects.requireNonNull(value, "group"), priority, headers, id, uniqueKey,
                uniquePeriod);
    }

    public PublishOptions priority(int value) {
        return new PublishOptions(delay, at, group, value, headers, id, uniqueKey, uniquePeriod);
    }

    public PublishOptions header(String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(headers);
        copy.put(Objects.requireNonNull(name, "header name"), Objects.requireNonNull(value, "header value"));
        return new PublishOptions(delay, at, group, priority, Collections.unmodifiableMap(copy), id, uniqueKey,
                uniquePeriod);
    }

    public PublishOptions headers(Map<String, String> values) {
        return new PublishOptions(delay, at, group, priority, Map.copyOf(values), id, uniqueKey, uniquePeriod);
    }

    /** The row's id, for a table whose id the database does not generate. */
    public PublishOptions id(Object value) {
        return new PublishOptions(delay, at, group, priority, headers, Objects.requireNonNull(value, "id"), uniqueKey,
                uniquePeriod);
    }

    /**
     * The job's unique key: while a row of the table holds it, a publish with the same key inserts
     * nothing and answers a {@link Published#isDuplicate() duplicate} naming the row that holds the
     * key. The table needs a {@link UniqueKey} column.
     */
    public PublishOptions uniqueKey(String key) {
        return new PublishOptions(delay, at, group, priority, headers, id, checkKey(key), null);
    }

    /**
     * A unique key for one period: the key written is {@code key} and the start of the current
     * period ({@code period} long, counted from the epoch on the host's clock), so one job per key
     * and period is published: {@code uniqueKey("digest", Duration.ofHours(1))} writes
     * {@code digest@2026-11-30T14:00:00Z} during that hour.
     */
    public PublishOptions uniqueKey(String key, Duration period) {
        Objects.requireNonNull(period, "period");
        if (period.isNegative() || period.isZero() || period.toMillis() == 0
                || period.compareTo(TimeLimits.LONGEST) > 0) {
            throw new IllegalArgumentException("a unique key's period is from a millisecond to "
                    + TimeLimits.LONGEST.toDays() + " days (a hundred years), not " + period);
        }
        return new PublishOptions(delay, at, group, priority, headers, id, checkKey(key), period);
    }

    private static String checkKey(String key) {
        Objects.requireNonNull(key, "unique key");
        if (key.isEmpty() || key.length() > MAX_UNIQUE_KEY_LENGTH - 30) {
            throw new IllegalArgumentException("a unique key has 1 to " + (MAX_UNIQUE_KEY_LENGTH - 30)
                    + " characters (room is kept for a period's start), not " + key.length());
        }
        return key;
    }

    public Duration delay() {
        return delay;
    }

    /** The due time {@link #at} set; null when the job is due after {@link #delay}. */
    public Instant at() {
        return at;
    }

    /** How long after {@code now} the job becomes due: {@link #at} less now (never negative), else the delay. */
    public Duration delayFrom(Instant now) {
        if (at == null) {
            return delay;
        }
        Duration left = Duration.between(now, at);
        return left.isNegative() ? Duration.ZERO : left;
    }

    public String group() {
        return group;
    }

    public Integer priority() {
        return priority;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public Object id() {
        return id;
    }

    /** The unique key as written at {@code now}: with the period's start where a period was given; null for none. */
    public String uniqueKey(Instant now) {
        if (uniqueKey == null || uniquePeriod == null) {
            return uniqueKey;
        }
        long length = uniquePeriod.toMillis();
        return uniqueKey + "@" + Instant.ofEpochMilli(Math.floorDiv(now.toEpochMilli(), length) * length);
    }

    /** True when the publish carries a unique key. */
    public boolean unique() {
        return uniqueKey != null;
    }
}
