package dev.inbox;

import java.time.Duration;
import java.util.Objects;

/**
 * What a handler decided about its delivery.
 *
 * <ul>
 *   <li>{@link #ack()} deletes the row, or stamps {@code processed_at} where the table has it;</li>
 *   <li>{@link #retry()} ends this attempt and makes the row due again; {@link #retry(Duration)}
 *       after a delay; {@link #retry(Duration, String)} also says why, into the table's
 *       {@link LastError} column;</li>
 *   <li>{@link #drop()} removes the row, into the dead-letter table where one is declared.</li>
 * </ul>
 */
public final class Outcome {
    /** The three decisions. */
    public enum Kind { ACK, RETRY, DROP }

    private static final Outcome ACK = new Outcome(Kind.ACK, Duration.ZERO, null);
    private static final Outcome RETRY = new Outcome(Kind.RETRY, Duration.ZERO, null);
    private static final Outcome DROP = new Outcome(Kind.DROP, Duration.ZERO, null);

    private final Kind kind;
    private final Duration delay;
    private final String reason;

    private Outcome(Kind kind, Duration delay, String reason) {
        this.kind = kind;
        this.delay = delay;
        this.reason = reason;
    }

    public static Outcome ack() {
        return ACK;
    }

    public static Outcome retry() {
        return RETRY;
    }

    /**
     * Retry once {@code delay} has passed; a zero delay is {@link #retry()}.
     *
     * @throws IllegalArgumentException for a delay below zero or above a hundred years, which no
     *                                  database's time columns could hold
     */
    public static Outcome retry(Duration delay) {
        TimeLimits.delay("a retry delay", Objects.requireNonNull(delay, "delay"));
        return delay.isZero() ? RETRY : new Outcome(Kind.RETRY, delay, null);
    }

    /**
     * Retry once {@code delay} has passed, keeping {@code reason} in the table's {@link LastError}
     * column where it has one (and in the dead letter, should this have been the last attempt). A
     * zero delay waits out the subscription's back-off, as {@link #retry()} does.
     *
     * <pre>{@code
     * return Outcome.retry(Duration.ofMinutes(1), "card processor answered 503");
     * }</pre>
     *
     * @throws IllegalArgumentException as {@link #retry(Duration)}
     */
    public static Outcome retry(Duration delay, String reason) {
        TimeLimits.delay("a retry delay", Objects.requireNonNull(delay, "delay"));
        return new Outcome(Kind.RETRY, delay, Objects.requireNonNull(reason, "reason"));
    }

    public static Outcome drop() {
        return DROP;
    }

    /** Drop, recording {@code reason} as the error text where a dead-letter table is declared. */
    public static Outcome drop(String reason) {
        return new Outcome(Kind.DROP, Duration.ZERO, Objects.requireNonNull(reason, "reason"));
    }

    public Kind kind() {
        return kind;
    }

    /** The retry delay; zero for every other outcome. */
    public Duration delay() {
        return delay;
    }

    /** The reason given to {@link #drop(String)} or {@link #retry(Duration, String)}, or null. */
    public String reason() {
        return reason;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Outcome other && kind == other.kind && delay.equals(other.delay)
                && Objects.equals(reason, other.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, delay, reason);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case ACK -> "ack";
            case RETRY -> reason != null ? "retry(" + delay + ", " + reason + ")"
                    : delay.isZero() ? "retry" : "retry(" + delay + ")";
            case DROP -> reason == null ? "drop" : "drop(" + reason + ")";
        };
    }
}
