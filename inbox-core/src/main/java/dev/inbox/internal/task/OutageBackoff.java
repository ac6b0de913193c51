package dev.inbox.internal.task;

import java.time.Duration;

/**
 * How long a loop that reaches the database (a claim loop, the lease keeper, the listener) waits
 * after a failure before it tries again: 100 ms, doubling to 5 s, and back to none once it
 * succeeds. Engine-internal; public for the lease keeper.
 */
public final class OutageBackoff {
    private static final Duration FIRST = Duration.ofMillis(100);
    private static final Duration LAST = Duration.ofSeconds(5);

    private Duration current = Duration.ZERO;

    /** A failure: the wait before the next try. */
    public Duration failed() {
        current = current.isZero() ? FIRST : min(current.multipliedBy(2), LAST);
        return current;
    }

    /** A success: the next failure waits the shortest again. */
    public void succeeded() {
        current = Duration.ZERO;
    }

    public static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
