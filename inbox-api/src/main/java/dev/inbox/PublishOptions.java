package dev.inbox;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Options of one publish; each needs its column in the table ({@code retry_after} for a delay,
 * {@code group}, {@code priority}, {@code headers}), and an id is needed when the table's id is not
 * generated. Immutable.
 *
 * <pre>{@code publisher.publish(image, PublishOptions.NONE.delay(Duration.ofMinutes(5)).priority(10));}</pre>
 */
public final class PublishOptions {
    /** No options. */
    public static final PublishOptions NONE = new PublishOptions(Duration.ZERO, null, null, Map.of(), null);

    private final Duration delay;
    private final String group;
    private final Integer priority;
    private final Map<String, String> headers;
    private final Object id;

    private PublishOptions(Duration delay, String group, Integer priority, Map<String, String> headers, Object id) {
        this.delay = delay;
        this.group = group;
        this.priority = priority;
        this.headers = headers;
        this.id = id;
    }

    public PublishOptions delay(Duration value) {
        Objects.requireNonNull(value, "delay");
        if (value.isNegative()) {
            throw new IllegalArgumentException("a publish delay cannot be negative: " + value);
        }
        return new PublishOptions(value, group, priority, headers, id);
    }

    public PublishOptions group(String value) {
        return new PublishOptions(delay, Objects.requireNonNull(value, "group"), priority, headers, id);
    }

    public PublishOptions priority(int value) {
        return new PublishOptions(delay, group, value, headers, id);
    }

    public PublishOptions header(String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(headers);
        copy.put(Objects.requireNonNull(name, "header name"), Objects.requireNonNull(value, "header value"));
        return new PublishOptions(delay, group, priority, Collections.unmodifiableMap(copy), id);
    }

    public PublishOptions headers(Map<String, String> values) {
        return new PublishOptions(delay, group, priority, Map.copyOf(values), id);
    }

    /** The row's id, for a table whose id the database does not generate. */
    public PublishOptions id(Object value) {
        return new PublishOptions(delay, group, priority, headers, Objects.requireNonNull(value, "id"));
    }

    public Duration delay() {
        return delay;
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
}
