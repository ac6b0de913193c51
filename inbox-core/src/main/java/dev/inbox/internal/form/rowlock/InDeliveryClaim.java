package dev.inbox.internal.form.rowlock;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.internal.form.Claim;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.HandlerTransaction;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.form.Settlements;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * A row claimed inside its delivery's transaction, which belongs to the worker's thread (JTA).
 * The handler writes in it and its ack commits it, so the claim, the writes and the settlement
 * commit together. Any other outcome rolls it back, and with it the row's lock and counted
 * attempt; the row then settles in a transaction of its own once locked again. If another
 * claim took the row in between, that claim works it, and this settlement is lost to it.
 */
final class InDeliveryClaim implements Claim {
    private final RowLockForm form;
    private final FormContext context;
    private final RowLockSql sql;
    private final Dialect dialect;
    private final DeliveryTransactions.Open open;
    private final Thread owner = Thread.currentThread();
    private volatile boolean ended;

    InDeliveryClaim(RowLockForm form, DeliveryTransactions.Open open) {
        this.form = form;
        this.context = form.context();
        this.sql = form.sql();
        this.dialect = context.dialect();
        this.open = open;
    }

    @Override
    public void ack(InFlight delivery, Instant now) {
        try {
            settleApart(delivery, c -> Settlements.run(c, sql.ack(), delivery, Outcome.ack(), now, dialect));
            context.reports().settled(delivery, Outcome.ack());
        } catch (SQLException | RuntimeException e) {
            context.reports().failed(delivery, Outcome.ack(), e);
        }
    }

    @Override
    public void settle(InFlight delivery, Outcome outcome, Instant now, Duration ifRefused) throws SQLException {
        try {
            settleApart(delivery, form.settlement(delivery, outcome, now));
        } catch (SQLException e) {
            putOff(delivery, now, ifRefused, e);
            throw e;
        }
    }

    @Override
    public void deadLetter(InFlight delivery, String error, String lastError, Instant now, Duration ifRefused) throws SQLException {
        try {
            settleApart(delivery, form.deadLettering(delivery, error, lastError, now));
        } catch (SQLException e) {
            putOff(delivery, now, ifRefused, e);
            throw e;
        }
    }

    /**
     * A settlement the database refused rolled back with its transaction: the row is locked again
     * apart, its attempt counted again, and put off by {@code delay}; a failure is kept with
     * {@code refusal}.
     */
    private void putOff(InFlight delivery, Instant now, Duration delay, SQLException refusal) {
        if (sql.retry() == null) {
            return;
        }
        try {
            settleApart(delivery, c -> Settlements.putOff(c, sql.retry(), delivery, delay, now, dialect));
        } catch (SQLException | RuntimeException e) {
            refusal.addSuppressed(e);
        }
    }

    @Override
    public boolean release(InFlight delivery, boolean started) {
        if (ended) {
            return false;
        }
        if (Thread.currentThread() == owner) {
            endQuietly(null);
        }
        // Else its worker, once the handler returns, finds the delivery settled and rolls back.
        return true;
    }

    @Override
    public HandlerTransaction begin(InFlight delivery, DeliveryTransactions transactions) {
        // The claim's transaction is the delivery's: the ack settles in it, and it ends there.
        return new HandlerTransaction() {
            @Override
            public Connection connection() {
                return open.connection();
            }

            @Override
            public boolean locksDatabase() {
                return open.locksDatabase();
            }

            @Override
            public void commitAck(Instant now) throws Exception {
                Settlements.run(open.connection(), sql.ack(), delivery, Outcome.ack(), now, dialect);
                end(true);
            }

            @Override
            public void rollback() throws Exception {
                if (!ended) {
                    end(false);
                }
            }

            @Override
            public void close() {
                if (!ended) {
                    endQuietly(null);
                }
            }
        };
    }

    /**
     * Settles a delivery whose handler did not commit. Before a handler ran (a payload that
     * does not decode, attempts exhausted) that is inside the claim's transaction; after its
     * rollback, in a transaction of its own on the row locked again, its attempt counted again.
     */
    private void settleApart(InFlight delivery, RowLockForm.InTransaction work) throws SQLException {
        if (!ended && Thread.currentThread() == owner) {
            try {
                work.run(open.connection());
                end(true);
            } catch (SQLException | RuntimeException e) {
                endQuietly(e);
                throw e;
            } catch (Exception e) {
                endQuietly(e);
                throw new SQLException("the claim's transaction did not commit: " + e, e);
            }
            return;
        }
        try (Connection connection = context.connections().open()) {
            JdbcTransaction apart = JdbcTransaction.begin(connection, dialect, context.spec(), true);
            try {
                settleLockedAgain(apart, delivery, work);
            } finally {
                try {
                    apart.end();
                } catch (SQLException e) {
                    // closed: the pool discards it
                }
            }
        }
    }

    /** Settles the delivery in {@code apart} once its row is locked again, its attempt counted again. */
    private void settleLockedAgain(JdbcTransaction apart, InFlight delivery, RowLockForm.InTransaction work)
            throws SQLException {
        Connection connection = apart.connection();
        try {
            if (!lockAgain(connection, delivery)) {
                apart.commit();
                throw new InboxException(InboxException.Kind.LEASE_LOST, "queue " + context.queue() + ": row "
                        + delivery.id() + " of table " + context.table() + " was claimed again after its delivery"
                        + " transaction rolled back; that claim settles it");
            }
            Sql count = sql.count();
            if (count != null) {
                try (PreparedStatement ps = count.prepare(connection)) {
                    count.set(ps, "id", delivery.id());
                    ps.executeUpdate();
                }
            }
            work.run(connection);
            apart.commit();
        } catch (SQLException | RuntimeException e) {
            apart.rollbackQuietly(e);
            throw e;
        }
    }

    /** Locks the row again, unless another transaction holds it or worked it since. */
    private boolean lockAgain(Connection connection, InFlight delivery) throws SQLException {
        Sql relock = sql.relock();
        try (PreparedStatement ps = relock.prepare(connection)) {
            relock.set(ps, "id", delivery.id());
            relock.setInt(ps, "attempt", delivery.attempt());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Commits or rolls back the claim's transaction and lets its connection go. */
    void end(boolean commit) throws Exception {
        ended = true;
        try {
            if (commit) {
                open.commit();
            } else {
                open.rollback();
            }
        } finally {
            open.close();
        }
    }

    void endQuietly(Exception cause) {
        try {
            end(false);
        } catch (Exception e) {
            if (cause != null) {
                cause.addSuppressed(e);
            }
        }
    }
}
