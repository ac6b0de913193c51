package dev.inbox.internal.form.lease;

import dev.inbox.InboxException;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.task.SteadyClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The lease form's brokers against the database's clock. Each broker writes and judges leases on
 * its own time, so two brokers more than half a lease apart take each other's rows in work: a
 * subscription on a host that far from the database's clock is refused as it opens. While the
 * host's clock has stepped and the broker holds the step ({@link SteadyClock}), the keeper reads
 * the database's clock to tell whether to follow it. Where the dialect cannot read the database's
 * clock, neither check is made and a step stays held.
 */
final class LeaseClock {
    private final SteadyClock clock;
    private final String query;
    private final String where;

    /** The database's clock, and the host's at the middle of the round trip that read it. */
    private record Reading(Instant database, Instant host, Duration roundTrip) {
        /** How far apart the two clocks are at least. */
        Duration apart() {
            Duration apart = Duration.between(host, database).abs().minus(roundTrip.dividedBy(2));
            return apart.isNegative() ? Duration.ZERO : apart;
        }
    }

    LeaseClock(FormContext context, SteadyClock clock) {
        this.clock = clock;
        this.query = context.dialect().clockQuery();
        this.where = context.dialect().name();
    }

    /**
     * Refuses the lease subscription of {@code context} where the host's clock is more than half
     * {@code lease} from the database's.
     */
    static void checkAtOpen(Connection connection, FormContext context, Duration lease) throws SQLException {
        String query = context.dialect().clockQuery();
        if (query == null) {
            return;
        }
        Reading reading = read(connection, query, context.clock());
        if (reading.apart().compareTo(lease.dividedBy(2)) > 0) {
            throw new InboxException(InboxException.Kind.DECLARATION, "queue " + context.queue() + ": the host's clock"
                    + " reads " + reading.host() + " and the database's (" + context.dialect().name() + ") "
                    + reading.database() + ", " + (reading.host().isAfter(reading.database()) ? "ahead" : "behind")
                    + " by " + SteadyClock.size(reading.apart()) + ", more than half the lease of " + lease.toSeconds() + " s of table " + context.table()
                    + ": leases written on it would end early, or late, for the other brokers, which would take its"
                    + " rows in work or it theirs; fix the host's time (NTP), or give the subscription a longer lease"
                    + " (more than twice the difference)");
        }
    }

    boolean stepHeld() {
        return clock.stepHeld();
    }

    /** Where a step of the host's clock is held, reads the database's clock to follow it or hold on. */
    void confirmStep(Connection connection) throws SQLException {
        if (!clock.stepHeld()) {
            return;
        }
        if (query == null) {
            clock.confirm(null, Duration.ZERO, where);
            return;
        }
        Reading reading = read(connection, query, clock.configured());
        clock.confirm(reading.database(), reading.roundTrip(), where);
    }

    private static Reading read(Connection connection, String query, Clock host) throws SQLException {
        long begun = System.nanoTime();
        Instant before = host.instant();
        long millis;
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(query)) {
            rs.next();
            millis = rs.getLong(1);
        }
        Duration trip = Duration.ofNanos(System.nanoTime() - begun);
        return new Reading(Instant.ofEpochMilli(millis), before.plus(trip.dividedBy(2)).truncatedTo(ChronoUnit.MILLIS),
                trip);
    }
}
