package dev.inbox.internal.form.rowlock;

import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.internal.form.Carry;
import dev.inbox.internal.form.CarryingClaimer;
import dev.inbox.internal.form.Claim;
import dev.inbox.internal.form.ClaimedRows;
import dev.inbox.internal.form.Claimer;
import dev.inbox.internal.form.DeadLetters;
import dev.inbox.internal.form.Dispatch;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.FormPlan;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.form.Settlements;
import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.RowLockStatements;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * The row lock form. A claim opens a transaction that locks its rows ({@code FOR UPDATE SKIP
 * LOCKED}) and stays open while their handlers run ({@link ClaimTransaction}); each settles in it,
 * acks put off until the last, and it commits when the last of them has settled. A crashed process's
 * rows return when its connection closes and the transaction rolls back. A transactional delivery's
 * writes go into the claim's transaction, so its claim takes one row. Where the delivery's
 * transaction is bound to its thread (JTA), each worker claims inside it ({@link InDeliveryClaim}).
 * Where the dialect sends the acks, the commit and the next claim together (PostgreSQL), a claim's
 * acks and commit wait in a {@link WorkedClaims} for the next claim, made on that claim's connection:
 * one round trip a batch, as a plain loop's next batch follows its commit.
 */
public final class RowLockForm {
    private final FormContext context;
    private final InboxSpec spec;
    private final Dialect dialect;
    private final RowLockSql sql;
    private final ClaimedRows claimed;
    /** Where worked claims wait for the next claim to carry their acks and commit; null where none carries. */
    private final WorkedClaims worked;

    private RowLockForm(FormContext context, RowLockSql sql) {
        this.context = context;
        this.spec = context.spec();
        this.dialect = context.dialect();
        this.sql = sql;
        this.claimed = context.rows();
        this.worked = sql.acksCommitAndClaim() == null ? null
                : new WorkedClaims("inbox-" + context.queue() + "-commits", context.workload().workers() + 1);
    }

    /** Opens the row lock form of {@code context}'s subscription. */
    public static FormPlan open(FormContext context, RowLockStatements statements) {
        RowLockForm form = new RowLockForm(context, RowLockSql.of(context, statements));
        FormContext.Workload work = context.workload();
        boolean threadBound = context.transactions().boundToThread();
        boolean inDelivery = context.transactional() && threadBound;
        if (inDelivery && form.sql.relock() == null) {
            throw new InboxException(InboxException.Kind.DECLARATION, "queue " + context.queue() + ": "
                    + context.dialect().name() + " gives no statement to lock a row of row lock table "
                    + context.table() + " again after a rolled-back JTA delivery, so its transactional deliveries"
                    + " cannot run in JTA transactions: give the table a lease column (locked_until) to use the lease"
                    + " form");
        }
        // A transactional delivery's writes commit with its claim's transaction: one row each.
        int rowsPerClaim = context.transactional() ? 1 : work.batchSize();
        Claimer claimer = inDelivery ? (now, limit) -> form.claimInDeliveryTransaction(now)
                : form.worked == null ? form::claim : new CarryingClaimer<>(form.worked, form::claim, form::carried);
        // In a server the claim's transaction must end in the task that began it: the worker claims.
        Dispatch dispatch = Dispatch.of(work, rowsPerClaim, threadBound, form.worked != null);
        // Each claim keeps a connection until its rows settle.
        return new FormPlan(claimer, rowsPerClaim, work.workers() + 1, dispatch,
                form.worked == null ? Carry.none() : form.worked, List.of(),
                new FormPlan.Connections(0, work.workers() + 1), form.sql.prepared(inDelivery));
    }

    RowLockSql sql() {
        return sql;
    }

    FormContext context() {
        return context;
    }

    /** Claims up to {@code limit} rows in a transaction of its own, on a connection it keeps. */
    private List<InFlight> claim(Instant now, int limit) throws SQLException {
        Connection connection = context.connections().open();
        JdbcTransaction open;
        try {
            // A transactional delivery's handler runs after a JDBC savepoint, which needs autocommit off.
            open = JdbcTransaction.begin(connection, dialect, spec, !context.transactional());
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        ClaimTransaction transaction = new ClaimTransaction(this, open);
        try {
            return transaction.holding(lockDue(connection, true, now, limit, transaction));
        } catch (SQLException e) {
            transaction.abandon(e);
            throwIfSerializationFailure(e);
            throw e;
        } catch (RuntimeException e) {
            transaction.abandon(e);
            throw e;
        }
    }

    /**
     * The acks of {@code last}, its commit and then the claim of up to {@code limit} rows in a
     * transaction begun after it, in one round trip on {@code last}'s connection, which the new
     * claim keeps. Should the round trip fail, whether the acks took is not known (the claim after
     * their commit may be what failed): they are reported failed, and the connection goes.
     */
    private List<InFlight> carried(ClaimTransaction last, Instant now, int limit) throws SQLException {
        Sql carrying = sql.acksCommitAndClaim();
        ClaimTransaction next = last.handedOn();
        List<InFlight> rows;
        try {
            rows = context.connections().prepared(last.connection(), carrying, ps -> {
                Object[] ids = last.acks().bindCarried(ps, carrying);
                carrying.setTime(ps, "now", dialect.stored(now), dialect);
                carrying.setInt(ps, "limit", limit);
                ps.execute();
                try (ResultSet rs = ps.getResultSet()) {
                    last.acks().carried(rs, ids, context.reports());
                }
                Sql.toNextResultSet(ps, "the claim carrying acks");
                try (ResultSet rs = ps.getResultSet()) {
                    return claimed.read(rs, null, next);
                }
            });
        } catch (SQLException | RuntimeException e) {
            last.failCarried(e);
            if (e instanceof SQLException failure) {
                throwIfSerializationFailure(failure);
            }
            throw e;
        }
        return next.holding(rows);
    }

    /** Claims one row inside a delivery transaction begun on this thread, which its delivery then runs in. */
    private List<InFlight> claimInDeliveryTransaction(Instant now) throws SQLException {
        DeliveryTransactions.Open open;
        try {
            open = context.transactions().begin(spec);
        } catch (SQLException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new InboxException(InboxException.Kind.DATABASE, "queue " + context.queue() + ": the transaction"
                    + " of a claim on row lock table " + spec.table() + " could not begin: " + e, e);
        }
        InDeliveryClaim holder = new InDeliveryClaim(this, open);
        try {
            List<InFlight> rows = lockDue(open.connection(), false, now, 1, holder);
            if (rows.isEmpty()) {
                holder.endQuietly(null);
            }
            return rows;
        } catch (SQLException | RuntimeException e) {
            holder.endQuietly(e);
            throw e;
        }
    }

    /**
     * Locks up to {@code limit} due rows in the transaction open on {@code connection}, counting their
     * attempts; {@code pooled} when the connection is of the form's source, which may keep the statements.
     */
    private List<InFlight> lockDue(Connection connection, boolean pooled, Instant now, int limit, Claim holder)
            throws SQLException {
        ConnectionSource statements = pooled ? context.connections() : null;
        Sql claim = sql.claim();
        List<InFlight> rows = ConnectionSource.prepared(statements, connection, claim, ps -> {
            claim.setTime(ps, "now", dialect.stored(now), dialect);
            claim.setInt(ps, "limit", limit);
            try (ResultSet rs = ps.executeQuery()) {
                return claimed.read(rs, null, holder);
            }
        });
        if (sql.stamp() != null) {
            sql.stamp().run(statements, connection, rows, dialect, (stamp, ps) -> { });
        }
        return rows;
    }

    /**
     * A claim's failure that is a serialization failure (at a level stricter than READ COMMITTED)
     * is thrown as what it is.
     */
    private void throwIfSerializationFailure(SQLException e) {
        if ("40001".equals(e.getSQLState())) {
            throw new InboxException(InboxException.Kind.DATABASE, "queue " + context.queue() + ": a claim on row lock"
                    + " table " + spec.table() + " failed with a serialization failure at isolation " + spec.isolation()
                    + "; row lock claims work at READ_COMMITTED (" + e.getMessage().trim() + ")", e);
        }
    }

    /** Work on a claim's connection, inside its transaction. */
    @FunctionalInterface
    interface InTransaction {
        void run(Connection connection) throws SQLException;
    }

    /** A retry's or a drop's statement, where the form has one, run for {@code delivery}. */
    InTransaction settlement(InFlight delivery, Outcome outcome, Instant now) {
        Sql settles = Settlements.of(outcome, sql.ack(), sql.retry(), sql.drop());
        return connection -> {
            if (settles != null) {
                Settlements.run(connection, settles, delivery, outcome, now, dialect);
            }
        };
    }

    InTransaction deadLettering(InFlight delivery, String error, String lastError, Instant now) {
        return connection -> DeadLetters.move(connection, sql.deadLetter(), sql.drop(), delivery, error, lastError, now, dialect);
    }

    /** The acks of a claim's rows put off until its last: where the next claim carries them, they wait there. */
    void workedAll(ClaimTransaction claim) {
        worked.park(claim);
    }

    /** True where a claim whose rows are all worked waits for the next claim to carry its acks and commit. */
    boolean carriesWorked() {
        return worked != null;
    }
}
