package dev.inbox.internal.form;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.internal.jdbc.Transactions;
import dev.inbox.internal.task.FailureLog;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.Threads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The lease form. The claim reads "now" once: due rows and ended leases are judged from it and the
 * expiry written (now + lease) starts from it. The claim counts the attempt and commits; the
 * expiry is the delivery's ownership token, and every settlement or extension takes effect only
 * while the row still holds it. A keeper extends the leases in work each half lease; the acks of
 * all workers are written together by one writer.
 */
public final class LeaseForm implements Form {
    private final FormContext context;
    private final Dialect dialect;
    private final LeaseStatements.ClaimStyle style;
    private final Sql claim;
    /**
     * The claim and then the acks waiting, committed apart in one round trip
     * ({@link LeaseStatements#claimCarryingAcks}), where the dialect writes it; else null.
     */
    private final Sql claimThenAcks;
    /** True where a claim's transaction also writes the acks waiting (one writer at a time: SQLite). */
    private final boolean acksInClaim;
    private final Sql stamp;
    /** The stamp of a list of rows in one statement, where the dialect writes it; else null. */
    private final ForRows stampRows;
    private final Sql extend;
    private final Sql ack;
    /** The acks of a list of rows in one statement, where the dialect writes it; else null. */
    private final ForRows ackRows;
    private final Sql retry;
    private final Sql drop;
    private final Sql deadLetter;
    private final Sql release;
    private final Duration lease;
    private final ClaimedRows claimed;
    private final Leased leased = new Leased();
    private final LeaseKeeper keeper;
    /** Null in a transactional subscription, whose acks commit with their delivery's transaction. */
    private final AckWriter acks;

    /**
     * @param ackRoom   how many acks may wait for the writer before a worker waits
     * @param carryAcks true where claims carry the acks waiting, as the dialect allows ({@code claimCarryingAcks});
     *                  false, the writer writes every ack (its own tests). A lone worker claiming once
     *                  it has worked its rows carries their acks too: one round trip for the claim and
     *                  the acks where a plain loop makes two (PostgreSQL, batches of 16: 0.8 of the CPU
     *                  per job of the writer writing them, jobs per second the same). Where the
     *                  database takes one writer at a time (SQLite) the claim's transaction writes them
     *                  instead: one commit for both, and no writer waiting on the other's lock.
     */
    public LeaseForm(FormContext context, LeaseStatements statements, Duration lease, int ackRoom, boolean carryAcks) {
        this.context = context;
        this.dialect = context.dialect();
        this.style = statements.style();
        this.claim = new Sql("lease claim", statements.claim());
        this.stamp = statements.stamp() == null ? null : new Sql("lease stamp", statements.stamp());
        this.stampRows = context.rows(stamp, statements.stampRows());
        this.extend = new Sql("lease extend", statements.extend());
        this.ack = new Sql("ack", statements.ack());
        this.ackRows = context.rows(ack, statements.ackRows());
        Sql ackAll = FormContext.ackAll(statements.ackAll());
        this.retry = new Sql("retry", statements.retry());
        this.drop = new Sql("drop", statements.drop());
        this.deadLetter = context.deadLetterSql();
        this.release = statements.release() == null ? null : new Sql("release", statements.release());
        this.lease = lease;
        this.claimed = context.rows();
        this.keeper = new LeaseKeeper(context.queue(), context.spec().table(), this::extend, context.connections(),
                context.clock(), context.listener(), lease);
        this.claimThenAcks = !carryAcks || context.transactional() ? null
                : context.optional("lease claim carrying acks", statements.claimCarryingAcks());
        // Where the database takes one writer at a time (SQLite), the claim's own transaction takes the
        // acks waiting: one commit, and no other writer's lock to wait on.
        this.acksInClaim = carryAcks && claimThenAcks == null && !context.transactional()
                && style == LeaseStatements.ClaimStyle.RETURNING && dialect.capabilities().writeLocksDatabase();
        this.acks = context.transactional() ? null : new AckWriter(
                context.acks(ack, ackRows, ackAll, d -> lost(d, "ack"), false), context.connections(), dialect,
                context.reports(), ackRoom, claimThenAcks != null || acksInClaim);
    }

    @Override
    public List<Sql> statements() {
        List<Sql> all = new ArrayList<>(List.of(claim, extend, ack, retry, drop));
        if (stamp != null) {
            all.add(1, stamp);
        }
        for (Sql optional : new Sql[] {deadLetter, release}) {
            if (optional != null) {
                all.add(optional);
            }
        }
        return all;
    }

    @Override
    public int rowsPerClaim(int batchSize) {
        return batchSize;
    }

    @Override
    public int claimsAtOnce(int workers, int rows) {
        return rows; // a claim holds nothing once it has returned
    }

    @Override
    public boolean loneWorkerClaimsWhenDry(int batch) {
        // At one row, a claim carrying the last one's ack is the job's one round trip (a plain loop
        // makes two); committed in the claim's own transaction (SQLite), the overlap paid better.
        return batch > 1 || claimThenAcks != null;
    }

    @Override
    public int connections(int workers, int claimLoops) {
        // A settlement per worker, a claim per loop, and the keeper (or the ack writer).
        return workers + claimLoops + 1;
    }

    @Override
    public void start(Threads threads, String name, Collection<InFlight> inWork) {
        keeper.start(threads, name + "-keeper", inWork);
        if (acks != null) {
            acks.start(threads, name + "-acks");
        }
    }

    @Override
    public void quiet() {
        if (acks != null) {
            acks.writeUncarried();
        }
    }

    @Override
    public FailureLog.Outage outage() {
        return keeper.outage();
    }

    @Override
    public String stuck(long now, long limitNanos) {
        return keeper.stuck(now, limitNanos);
    }

    @Override
    public int stop() {
        keeper.stop();
        return 0;
    }

    @Override
    public boolean close(Duration wait) throws InterruptedException {
        return acks == null || acks.close(wait);
    }

    @Override
    public List<InFlight> claim(Instant now, int limit) throws SQLException {
        // Due rows are judged by "now" as stored (rounded down), the expiry from the exact instant (rounded up).
        Instant at = dialect.stored(now);
        Instant expiry = dialect.deadline(now, lease);
        AckBatch carried = claimThenAcks == null && !acksInClaim ? null : acks.takeForClaim();
        if (carried != null) {
            return acksInClaim ? claimCommittingAcks(carried, at, expiry, limit)
                    : claimCarrying(carried, at, expiry, limit);
        }
        // RETURNING: one statement in autocommit leases, counts the attempt and commits at once.
        return context.connections().use(connection -> style == LeaseStatements.ClaimStyle.RETURNING
                ? readClaim(connection, at, expiry, limit)
                : claimThenStamp(connection, at, expiry, limit));
    }

    /**
     * The claim, and the acks {@code carried} after it in the same round trip, each committed on
     * its own: a failure of either leaves the acks unwritten (the claim's stops the acks from
     * running; theirs rolls them back), and they go to the writer.
     */
    private List<InFlight> claimCarrying(AckBatch carried, Instant now, Instant expiry, int limit)
            throws SQLException {
        boolean[] ran = new boolean[1];
        try {
            return context.connections().use(connection -> context.connections().prepared(connection,
                    claimThenAcks, ps -> {
                        claimThenAcks.setTime(ps, "now", now, dialect);
                        claimThenAcks.setTime(ps, "expiry", expiry, dialect);
                        claimThenAcks.setInt(ps, "limit", limit);
                        Object[] ids = carried.bindCarried(ps, claimThenAcks);
                        ps.execute();
                        ran[0] = true;
                        List<InFlight> rows;
                        try (ResultSet rs = ps.getResultSet()) {
                            rows = claimed.read(rs, expiry, leased);
                        }
                        Transactions.toNextResultSet(ps, "the acks carried by a claim");
                        try (ResultSet rs = ps.getResultSet()) {
                            carried.carried(rs, ids, context.reports());
                        }
                        return rows;
                    }));
        } catch (SQLException | RuntimeException e) {
            if (ran[0]) {
                carried.fail(context.reports(), e); // the acks' result, not read: whether they took is not known
            } else {
                acks.notCarried(carried, e);
            }
            throw e;
        }
    }

    /**
     * The acks {@code carried}, then the claim, in one transaction: the acks are reported once it
     * commits. A claim that fails leaves the acks to commit and is thrown after; a commit that fails
     * fails the acks, and the claim's leases roll back with them. Where no connection came, the
     * acks go to the writer.
     */
    private List<InFlight> claimCommittingAcks(AckBatch carried, Instant now, Instant expiry, int limit)
            throws SQLException {
        List<InFlight> rows = new ArrayList<>();
        SQLException[] claimFailed = new SQLException[1];
        try {
            context.connections().use(connection -> {
                carried.write(connection, (c, statements, batch) -> Transactions.run(c, dialect, -1, () -> {
                    boolean[] took = batch.run();
                    try {
                        rows.addAll(readClaim(c, now, expiry, limit));
                    } catch (SQLException e) {
                        claimFailed[0] = e;
                    }
                    return took;
                }), context.reports());
                return null;
            });
        } catch (SQLException | RuntimeException e) {
            if (!carried.isEmpty()) {
                acks.notCarried(carried, e); // never written: no connection came
            }
            throw e;
        }
        if (claimFailed[0] != null) {
            throw claimFailed[0];
        }
        return rows;
    }

    /** Runs the claim statement and reads its rows, each leased until {@code expiry}. */
    private List<InFlight> readClaim(Connection connection, Instant now, Instant expiry, int limit)
            throws SQLException {
        return context.connections().prepared(connection, claim, ps -> {
            claim.setTime(ps, "now", now, dialect);
            claim.setTime(ps, "expiry", expiry, dialect);
            claim.setInt(ps, "limit", limit);
            try (ResultSet rs = ps.executeQuery()) {
                return claimed.read(rs, expiry, leased);
            }
        });
    }

    private List<InFlight> claimThenStamp(Connection connection, Instant now, Instant expiry, int limit)
            throws SQLException {
        // At REPEATABLE READ a SKIP LOCKED claim also locks gaps and collapses under concurrency.
        return Transactions.run(connection, dialect, Connection.TRANSACTION_READ_COMMITTED, () -> {
            List<InFlight> rows = readClaim(connection, now, expiry, limit);
            if (rows.size() > 1 && stampRows != null) {
                stampRows.run(context.connections(), connection, rows, dialect,
                        (sql, ps) -> sql.setTime(ps, "expiry", expiry, dialect));
            } else if (!rows.isEmpty()) {
                context.connections().prepared(connection, stamp, ps -> {
                    for (InFlight row : rows) {
                        stamp.setTime(ps, "expiry", expiry, dialect);
                        stamp.set(ps, "id", row.id());
                        ps.addBatch();
                    }
                    return ps.executeBatch();
                });
            }
            return rows;
        });
    }

    /** Moves the delivery's lease on at {@code now}; false when the row is no longer held. */
    private boolean extend(Connection connection, InFlight delivery, Instant now) throws SQLException {
        Instant next = dialect.deadline(now, lease);
        if (next.equals(delivery.token())) {
            return true;
        }
        try (PreparedStatement ps = extend.prepare(connection)) {
            extend.setTime(ps, "expiry", next, dialect);
            extend.set(ps, "id", delivery.id());
            extend.setTime(ps, "token", delivery.token(), dialect);
            if (ps.executeUpdate() == 1) {
                delivery.token(next);
                return true;
            }
            return false;
        }
    }

    private void settle(Connection connection, InFlight delivery, Outcome outcome, Instant now) throws SQLException {
        if (Settlements.run(connection, Settlements.of(outcome, ack, retry, drop), delivery, outcome, now,
                dialect) != 1) {
            throw lost(delivery, outcome.toString());
        }
    }

    private InboxException lost(InFlight delivery, String what) {
        return new InboxException(InboxException.Kind.LEASE_LOST, "queue " + context.queue() + ": row "
                + delivery.id() + " of table " + context.spec().table() + " was claimed again after its lease ran"
                + " out, so its " + what + " did not take effect; keep handlers within the lease or let the keeper"
                + " reach the database");
    }

    /** The claim of every lease delivery: the row holds its lease, and the process holds nothing. */
    private final class Leased implements Claim {
        @Override
        public void ack(InFlight delivery, Instant now) {
            acks.add(delivery, now);
        }

        @Override
        public void settle(InFlight delivery, Outcome outcome, Instant now) throws SQLException {
            context.connections().use(connection -> {
                LeaseForm.this.settle(connection, delivery, outcome, now);
                return null;
            });
        }

        @Override
        public void deadLetter(InFlight delivery, String error, Instant now) throws SQLException {
            context.connections().use(connection -> Transactions.run(connection, -1, () -> {
                if (!DeadLetters.move(connection, deadLetter, drop, delivery, error, now, dialect)) {
                    throw lost(delivery, "move to the dead-letter table");
                }
                return null;
            }));
        }

        @Override
        public boolean release(InFlight delivery, boolean started) throws SQLException {
            Sql sql = started || release == null ? retry : release;
            return context.connections().use(connection -> {
                try (PreparedStatement ps = sql.prepare(connection)) {
                    sql.set(ps, "id", delivery.id());
                    sql.setTime(ps, "token", delivery.token(), dialect);
                    sql.setTime(ps, "due", null, dialect);
                    return ps.executeUpdate() == 1;
                }
            });
        }

        @Override
        public HandlerTransaction begin(InFlight delivery, DeliveryTransactions transactions) throws Exception {
            return new OwnTransaction(transactions.begin(context.spec()),
                    (connection, now) -> LeaseForm.this.settle(connection, delivery, Outcome.ack(), now), () -> { });
        }

        @Override
        public boolean expired(InFlight delivery, Instant now) {
            return !now.isBefore(delivery.token());
        }
    }
}
