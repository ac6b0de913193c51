package dev.inbox.internal.form.rowlock;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.internal.form.AckBatch;
import dev.inbox.internal.form.Claim;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.HandlerTransaction;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.form.Settlements;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.spi.DeliveryTransactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The open transaction of one row lock claim, how many of its deliveries have yet to settle, and
 * the acks put off until the last of them, which run as one batch just before the commit (or wait
 * for the next claim to carry them with the commit, where the form's claims carry).
 */
final class ClaimTransaction implements Claim {
    private final RowLockForm form;
    private final FormContext context;
    private final RowLockSql sql;
    private final JdbcTransaction transaction;
    private final Connection connection;
    private final AckBatch acks;
    private int open;
    private boolean settledAny;
    private volatile boolean ended;

    ClaimTransaction(RowLockForm form, JdbcTransaction transaction) {
        this.form = form;
        this.context = form.context();
        this.sql = form.sql();
        this.transaction = transaction;
        this.connection = transaction.connection();
        this.acks = context.acks(sql.ack(), sql.ackRows(), sql.ackAll(), this::gone, true);
    }

    /** The claim's rows, now held by it; a claim of none commits and ends at once. */
    List<InFlight> holding(List<InFlight> rows) throws SQLException {
        if (rows.isEmpty()) {
            try {
                transaction.commit();
            } finally {
                end();
            }
        } else {
            open = rows.size();
        }
        return rows;
    }

    /** The claim failed before it held rows: rolled back, and its connection goes. */
    void abandon(Exception cause) {
        transaction.rollbackQuietly(cause);
        end();
    }

    /**
     * The next claim, made in this claim's connection once its acks and commit have gone: this one
     * has ended, its connection and transaction are the next one's.
     */
    ClaimTransaction handedOn() {
        ended = true;
        return new ClaimTransaction(form, transaction);
    }

    /** The round trip that carried this claim's acks and commit failed: whether they took is not known. */
    void failCarried(Exception cause) {
        acks.fail(context.reports(), cause); // those not reported from the round trip's results
        transaction.rollbackQuietly(cause);
        end();
    }

    Connection connection() {
        return connection;
    }

    AckBatch acks() {
        return acks;
    }

    /** True once its transaction has ended (committed, rolled back, or handed on). */
    boolean ended() {
        return ended;
    }

    @Override
    public synchronized void ack(InFlight delivery, Instant now) {
        // The row stays locked by the claim's transaction, so its ack can wait for the others'.
        if (ended) {
            context.reports().failed(delivery, Outcome.ack(), gone(delivery));
            return;
        }
        acks.add(delivery, now);
        settledAny = true;
        try {
            done(delivery);
        } catch (SQLException | RuntimeException e) {
            // reported per ack by the batch; the rows are back in the queue
        }
    }

    @Override
    public void settle(InFlight delivery, Outcome outcome, Instant now, Duration ifRefused) throws SQLException {
        inTransaction(delivery, form.settlement(delivery, outcome, now), now, ifRefused);
    }

    @Override
    public void deadLetter(InFlight delivery, String error, String lastError, Instant now, Duration ifRefused) throws SQLException {
        inTransaction(delivery, form.deadLettering(delivery, error, lastError, now), now, ifRefused);
    }

    @Override
    public synchronized boolean release(InFlight delivery, boolean started) throws SQLException {
        if (ended) {
            return false;
        }
        done(null);
        return true;
    }

    /**
     * Where the handler does not write in the claim's transaction: a stuck handler's row then settles
     * in it, so the rows claimed with it commit without waiting for that handler.
     */
    @Override
    public boolean settlesBesideItsHandler() {
        return !context.workload().transactional();
    }

    @Override
    public HandlerTransaction begin(InFlight delivery, DeliveryTransactions transactions) throws SQLException {
        Savepoint beforeHandler = connection.setSavepoint();
        return new HandlerTransaction() {
            @Override
            public Connection connection() {
                return connection;
            }

            @Override
            public boolean locksDatabase() {
                return false;
            }

            @Override
            public void commitAck(Instant now) throws SQLException {
                // The claim's only row: its ack commits the claim's transaction.
                commitWithAck(delivery, c -> Settlements.run(c, sql.ack(), delivery, Outcome.ack(), now,
                        context.dialect()));
            }

            @Override
            public void rollback() throws SQLException {
                // Back to before the handler, so the row still settles in the transaction that holds it.
                synchronized (ClaimTransaction.this) {
                    if (!ended) {
                        connection.rollback(beforeHandler);
                    }
                }
            }

            @Override
            public void close() {
                // the claim's transaction ends when its row settles
            }
        };
    }

    /**
     * Settles one delivery in the claim's transaction, committing when it was the claim's last. A
     * settlement the database refuses is undone alone (a step of the transaction), and the row is
     * put off by {@code ifRefused} where the table can delay it; the claim's other rows and this
     * row's counted attempt commit with the claim.
     */
    private synchronized void inTransaction(InFlight delivery, RowLockForm.InTransaction work, Instant now,
            Duration ifRefused) throws SQLException {
        if (ended) {
            throw gone(delivery);
        }
        try {
            step(work);
        } catch (SQLException | RuntimeException e) {
            if (ended) {
                throw e;
            }
            if (sql.retry() != null) {
                try {
                    step(c -> Settlements.putOff(c, sql.retry(), delivery, ifRefused, now, context.dialect()));
                } catch (SQLException | RuntimeException putOff) {
                    e.addSuppressed(putOff);
                    if (ended) {
                        throw e;
                    }
                }
            }
            settledAny = true; // the attempt counted by the claim commits
            done(delivery);
            throw e;
        }
        settledAny = true;
        done(delivery);
    }

    /**
     * The ack of a transactional delivery, the claim's only row, which commits the handler's
     * writes with it. Where it fails, all of it rolls back, the writes too: the row comes back
     * with its attempt unspent, and no write is kept without its ack.
     */
    private synchronized void commitWithAck(InFlight delivery, RowLockForm.InTransaction ack) throws SQLException {
        if (ended) {
            throw gone(delivery);
        }
        try {
            ack.run(connection);
        } catch (SQLException | RuntimeException e) {
            transaction.rollbackQuietly(e);
            acks.fail(context.reports(), e);
            end();
            throw e;
        }
        settledAny = true;
        done(delivery);
    }

    /**
     * Runs {@code work} as a step of the claim's transaction. Where it fails, the step alone is
     * undone and the failure thrown; where even that fails, the claim ends (its rows go back to
     * the queue) before the failure is thrown.
     */
    private void step(RowLockForm.InTransaction work) throws SQLException {
        try {
            transaction.beginStep();
            work.run(connection);
        } catch (SQLException | RuntimeException e) {
            try {
                transaction.undoStep();
            } catch (SQLException undo) {
                e.addSuppressed(undo);
                transaction.rollbackQuietly(e);
                acks.fail(context.reports(), e);
                end();
            }
            throw e;
        }
    }

    /**
     * One delivery is done; after the last, runs the acks put off and commits what settled. Where
     * the next claim carries them, the acks and the commit of a claim whose last row a delivery
     * settled wait for it instead.
     */
    private void done(InFlight last) throws SQLException {
        if (--open > 0) {
            return;
        }
        if (form.carriesWorked() && !acks.isEmpty() && last != null) {
            form.workedAll(this);
            return;
        }
        settle();
    }

    /** Settles a claim whose acks waited for a claim that did not come: reported per ack. */
    synchronized void settleNow() {
        try {
            settle();
        } catch (SQLException | RuntimeException e) {
            // reported per ack by the batch; the rows are back in the queue
        }
    }

    /** Runs the acks put off and commits what settled, or rolls back where none settled, and ends. */
    private void settle() throws SQLException {
        try {
            if (!acks.isEmpty() && sql.acksAndCommit() != null) {
                acks.writeCommitting(connection, sql.acksAndCommit(), context.reports());
                transaction.commit(); // the statement committed: the driver knows, and sends nothing
            } else if (!acks.isEmpty()) {
                acks.write(connection, (c, statements, batch) -> {
                    boolean[] took = batch.run();
                    transaction.commit();
                    return took;
                }, context.reports());
            } else if (settledAny) {
                transaction.commit();
            } else {
                transaction.rollback(); // none settled: every row goes back as it was
            }
        } catch (SQLException | RuntimeException e) {
            transaction.rollbackQuietly(e);
            throw e;
        } finally {
            end();
        }
    }

    private void end() {
        ended = true;
        try (connection) {
            transaction.end();
        } catch (SQLException e) {
            // the pool discards a broken connection
        }
    }

    private InboxException gone(InFlight delivery) {
        return new InboxException(InboxException.Kind.DATABASE, "queue " + context.queue() + ": the claim"
                + " transaction of row " + delivery.id() + " of table " + context.table() + " was rolled back; the"
                + " row is back in the queue");
    }
}
