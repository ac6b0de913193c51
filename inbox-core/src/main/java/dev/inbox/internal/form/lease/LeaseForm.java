package dev.inbox.internal.form.lease;

import dev.inbox.internal.form.AckCarry;
import dev.inbox.internal.form.Carry;
import dev.inbox.internal.form.CarryingClaimer;
import dev.inbox.internal.form.Claimer;
import dev.inbox.internal.form.Dispatch;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.FormPlan;
import dev.inbox.internal.task.SteadyClock;
import dev.inbox.spi.LeaseStatements;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * The lease form. A claim writes each row's lease expiry, its ownership token, and commits: nothing
 * stays open while handlers run, and every settlement or extension takes effect only while the row
 * still holds the token. A keeper extends the leases in work each half lease; the acks of all
 * workers gather in one {@link AckCarry}, which the next claim carries where the database allows
 * (a chain of statements, or, one writer at a time, the claim's transaction) and a writer writes
 * otherwise.
 */
public final class LeaseForm {
    private LeaseForm() {}

    /**
     * Refuses the lease subscription of {@code context} where the host's clock is more than half
     * {@code lease} from the database's (on {@code connection}), naming both times and the fix.
     */
    public static void checkClock(Connection connection, FormContext context, Duration lease) throws SQLException {
        LeaseClock.checkAtOpen(connection, context, lease);
    }

    /** Opens the lease form of {@code context}'s subscription, with leases of {@code lease}. */
    public static FormPlan open(FormContext context, LeaseStatements statements, Duration lease) {
        LeaseSql sql = LeaseSql.of(context, statements);
        FormContext.Workload work = context.workload();
        String name = "inbox-" + context.queue();
        boolean chained = sql.claimCarryingAcks() != null;
        // Where the database takes one writer at a time, a claim's own transaction takes the acks waiting:
        // one commit, and no writer waiting on the other's lock.
        boolean inAckTransaction = !chained && !context.transactional()
                && sql.style() == LeaseStatements.ClaimStyle.RETURNING
                && context.dialect().capabilities().writeLocksDatabase();
        boolean carried = chained || inAckTransaction;
        AckCarry acks = context.transactional() ? null : new AckCarry(name + "-acks",
                context.acks(sql.ack(), sql.ackRows(), sql.ackAll(), row -> Leased.lost(context, row, "ack"), false),
                context.connections(), context.dialect(), context.reports(), 2 * (work.workers() + work.batchSize()),
                carried ? Carry.WAIT : Duration.ZERO);
        Leased leased = new Leased(context, sql, lease, acks);
        LeaseClaims claims = new LeaseClaims(context, sql, lease, leased);
        Claimer each = acks == null || !carried ? claims::claim
                : new CarryingClaimer<>(acks, claims::claim, chained ? claims::chained : claims::inAckTransaction);
        SteadyClock clock = SteadyClock.over(context.clock());
        // For a lease after following a forward step of the clock, rows in work look ended whose leases
        // were written before it: no claim until every keeper has extended them on the new time.
        Claimer claimer = (now, limit) -> clock.followedForwardWithin(lease) ? List.of() : each.claim(now, limit);
        LeaseKeeper keeper = new LeaseKeeper(context.queue(), context.table(), name + "-keeper", leased::extend,
                context.connections(), clock, new LeaseClock(context, clock), context.listener(), lease,
                context.inWork());
        // A claim that holds nothing open is the lone worker's to make once its rows are worked; at one
        // row a claim loop's overlap pays for its wake, unless the claim carries the last row's ack.
        Dispatch dispatch = Dispatch.of(work, work.batchSize(), false, work.batchSize() > 1 || chained);
        // A settlement per worker, a claim per claim loop, and the keeper (or the ack writer).
        return new FormPlan(claimer, work.batchSize(), Integer.MAX_VALUE, dispatch,
                acks == null ? Carry.none() : acks, List.of(keeper), new FormPlan.Connections(1, work.workers() + 1),
                sql.prepared());
    }
}
