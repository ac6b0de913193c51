package dev.inbox.internal.task;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;

/**
 * The time of a broker's subscriptions: the configured clock, carried forward by the monotonic
 * clock ({@link System#nanoTime}) so that a step of the host's clock is not followed at once.
 * While the configured clock agrees within {@link #TOLERANCE} with the time carried forward from
 * its last reading, it is read as it is: NTP's slewing and a clock offset on purpose are followed.
 * A larger step, forward or back, is held, the time carried forward read instead, until the
 * database's clock confirms it ({@link #confirm}) or the configured clock comes back. A lease
 * written or judged meanwhile is on the time the other brokers keep, not an hour off.
 *
 * <p>A reading is a clock read and a comparison. A clock that stands still between readings more
 * than a second apart (a test's) reads as a step back, and is held.
 */
public final class SteadyClock extends Clock {
    /** How far the configured clock may move from the time carried forward and still be followed. */
    public static final Duration TOLERANCE = Duration.ofSeconds(1);
    private static final System.Logger LOG = System.getLogger(SteadyClock.class.getName());
    private static final long NEVER = Long.MIN_VALUE;

    private final Clock configured;
    private volatile Anchor anchor;
    /** The configured clock's step not followed, or null while in step. */
    private volatile Duration held;
    /** When (System.nanoTime()) a forward step was last followed; NEVER before one. */
    private volatile long followedForwardAt = NEVER;
    /** Whether the step held has been told; reset once in step. */
    private boolean told;

    /** A reading of the configured clock and of the monotonic clock at once. */
    private record Anchor(Instant time, long nanos) {
        Instant at(long now) {
            return time.plusNanos(now - nanos);
        }
    }

    public SteadyClock(Clock configured) {
        this.configured = configured;
        this.anchor = new Anchor(configured.instant(), System.nanoTime());
    }

    /** {@code clock} where it is steady already, else a steady clock over it. */
    public static SteadyClock over(Clock clock) {
        return clock instanceof SteadyClock steady ? steady : new SteadyClock(clock);
    }

    @Override
    public Instant instant() {
        long nanos = System.nanoTime();
        Instant read = configured.instant();
        Instant carried = anchor.at(nanos);
        if (within(read, carried, TOLERANCE)) {
            anchor = new Anchor(read, nanos);
            if (held != null) {
                inStep();
            }
            return read;
        }
        if (held == null) {
            held = Duration.between(carried, read);
        }
        return carried;
    }

    /** True while a step of the configured clock is held, for {@link #confirm} to settle. */
    public boolean stepHeld() {
        return held != null;
    }

    /** True when a forward step was followed less than {@code span} ago. */
    public boolean followedForwardWithin(Duration span) {
        long at = followedForwardAt;
        return at != NEVER && System.nanoTime() - at < span.toNanos();
    }

    /**
     * Follows the step held where {@code database} (the database's clock, read within
     * {@code roundTrip}) agrees with the configured clock; else keeps holding it, and says so once.
     * A null {@code database}: its clock cannot be read, and the step is held until the configured
     * clock comes back or the broker reopens.
     */
    public synchronized void confirm(Instant database, Duration roundTrip, String where) {
        Duration step = held;
        if (step == null) {
            return;
        }
        long nanos = System.nanoTime();
        Instant read = configured.instant();
        Instant carried = anchor.at(nanos);
        if (database != null && within(read, database, TOLERANCE.plus(roundTrip))) {
            anchor = new Anchor(read, nanos);
            held = null;
            told = false;
            if (read.isAfter(carried)) {
                followedForwardAt = nanos;
            }
            LOG.log(Level.WARNING, "the host''s clock stepped {0} to {1}, and the database''s clock ({2}) agrees:"
                    + " the broker follows it{3}", describe(step), millis(read), where,
                    read.isAfter(carried) ? ", and makes no lease claim for a lease, while the leases written"
                            + " before the step are extended" : "");
        } else if (!told) {
            told = true;
            LOG.log(Level.WARNING, "the host''s clock stepped {0} to {1}, and the database''s clock ({2}) does not"
                    + " agree ({3}): the broker keeps its time on the monotonic clock ({4}), so that its leases"
                    + " neither end early nor run late, until the database confirms the step or the host''s clock"
                    + " comes back; check the host''s time (NTP)", describe(step), millis(read), where,
                    database == null ? "it cannot be read" : "it reads " + database, millis(carried));
        }
    }

    private synchronized void inStep() {
        if (held != null) {
            held = null;
            told = false;
            LOG.log(Level.INFO, "the host's clock is back in step with the broker's time");
        }
    }

    /** The configured clock this one carries forward. */
    public Clock configured() {
        return configured;
    }

    @Override
    public ZoneId getZone() {
        return configured.getZone();
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return zone.equals(getZone()) ? this : new SteadyClock(configured.withZone(zone));
    }

    private static Instant millis(Instant time) {
        return time.truncatedTo(ChronoUnit.MILLIS);
    }

    private static boolean within(Instant a, Instant b, Duration tolerance) {
        return Duration.between(a, b).abs().compareTo(tolerance) <= 0;
    }

    /** A step as "forward 1 h 0 min 0.000 s" or "back ...". */
    private static String describe(Duration step) {
        return (step.isNegative() ? "back " : "forward ") + size(step);
    }

    /** The size of {@code span} as "1 h 0 min 0.000 s", "2 min 0.250 s" or "0.250 s". */
    public static String size(Duration span) {
        Duration size = span.abs();
        return (size.toHours() > 0 ? size.toHours() + " h " : "") + (size.toMinutes() > 0 ? size.toMinutesPart()
                + " min " : "") + size.toSecondsPart() + "." + String.format("%03d", size.toMillisPart()) + " s";
    }
}
