package dev.inbox;

import java.time.Duration;
import java.time.Instant;

/**
 * The delays and times a job's row can hold on every supported database: a refused value fails
 * at the call that gives it, naming the range, not later as a settlement or insert the database
 * refuses (MySQL's and MariaDB's {@code DATETIME} ends with the year 9999).
 */
final class TimeLimits {
    /** The longest delay: a hundred years. */
    static final Duration LONGEST = Duration.ofDays(36_500);
    /** The earliest and latest times a due time may be. */
    static final Instant EARLIEST = Instant.EPOCH;
    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

    private TimeLimits() {}

    /** {@code delay}, checked to be from zero to {@link #LONGEST}; {@code what} names it in the error. */
    static Duration delay(String what, Duration delay) {
        if (delay.isNegative() || delay.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException(what + " is from zero to " + LONGEST.toDays() + " days (a hundred"
                    + " years), not " + delay);
        }
        return delay;
    }

    /** {@code time}, checked to lie from {@link #EARLIEST} to {@link #LATEST}. */
    static Instant time(String what, Instant time) {
        if (time.isBefore(EARLIEST) || time.isAfter(LATEST)) {
            throw new IllegalArgumentException(what + " lies from " + EARLIEST + " to " + LATEST + ", not " + time);
        }
        return time;
    }
}
