package dev.inbox.internal.runner;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a row whose attempt failed waits before it is due again: {@code first}, doubled for
 * each attempt before, at most {@code longest}, with up to a quarter taken off at random so rows
 * that failed together do not all come back together.
 */
record RetryBackoff(Duration first, Duration longest) {

    /** The wait after the failure of {@code attempt} (1 for a first delivery; 0 where the table counts none). */
    Duration after(int attempt) {
        if (first.isZero() || longest.isZero()) {
            return Duration.ZERO;
        }
        int doublings = Math.max(0, attempt - 1);
        long firstNanos = first.toNanos();
        long longestNanos = longest.toNanos();
        // Past 62 doublings, or once the doubled wait passes the longest, the longest it is.
        long nanos = doublings >= 62 || firstNanos > longestNanos >> doublings ? longestNanos : firstNanos << doublings;
        long jitter = ThreadLocalRandom.current().nextLong(nanos / 4 + 1);
        return Duration.ofNanos(Math.max(1_000_000, nanos - jitter));
    }
}
