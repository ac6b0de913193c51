package dev.inbox.internal.form;

import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.ForwardingOpen;
import dev.inbox.internal.jdbc.OpenTransaction;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.internal.jdbc.Transactions;
import dev.inbox.internal.task.Waiting;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.RowLockStatements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The row lock form. A claim opens a transaction that locks its rows ({@code FOR UPDATE SKIP
 * LOCKED}) and stays open while their handlers run; each settles in it, acks put off until the
 * last, and it commits when the last of them has settled. A crashed process's rows return when
 * its connection closes and the transaction rolls back. A transactional delivery's writes go into
 * the claim's transaction, so its claim takes one row (which the worker that claims it works).
 * Where the delivery's transaction is bound to its thread (JTA), each worker claims for itself
 * inside it: see {@link InDeliveryTransaction}. Where the dialect sends a statement, a commit and
 * the next claim together (PostgreSQL), the acks and the commit of a claim whose last row its
 * worker acked wait for that worker's next claim, made on the claim's connection right after: one
 * round trip a batch, as a plain loop's next batch follows its commit.
 */
public final class RowLockForm implements Form {
    private final FormContext context;
    private final InboxSpec spec;
    private final Dialect dialect;
    private final LeaseStatements.ClaimStyle style;
    private final Sql claim;
    private final Sql stamp;
    /** The stamp of a list of rows in one statement, where the dialect writes it; else null. */
    private final ForRows stampRows;
    private final Sql ack;
    /** The acks of a list of rows in one statement, where the dialect writes it; else null. */
    private final ForRows ackRows;
    /** The acks of many rows that return their ids, where the dialect writes them; else null. */
    private final Sql ackAll;
    /**
     * The acks of many rows and the commit of the claim's transaction, in one round trip
     * ({@link RowLockStatements#acksAndCommit}), where the dialect writes them; else null.
     */
    private final Sql acksAndCommit;
    /**
     * The acks of a claim, its commit and the next claim, in one round trip
     * ({@link RowLockStatements#acksCommitAndClaim}), where the dialect writes them; else null. A worker's next claim so
     * carries the settlement of the claim it has just worked.
     */
    private final Sql acksThenClaim;
    /** The claim this worker has just worked, whose acks and commit wait for its next claim; else none. */
    private final ThreadLocal<ClaimTransaction> workedHere = new ThreadLocal<>();
    /** Claims worked whose acks and commit wait for their worker's next claim. */
    private final AtomicInteger waiting = new AtomicInteger();
    private final Sql retry;
    private final Sql drop;
    private final Sql deadLetter;
    private final Sql relock;
    private final Sql count;
    private final ClaimedRows claimed;
    /** True when a claim runs inside its delivery's transaction, on the worker's thread. */
    private final boolean inDeliveryTransaction;

    public RowLockForm(FormContext context, RowLockStatements statements) {
        this.context = context;
        this.spec = context.spec();
        this.dialect = context.dialect();
        this.style = statements.style();
        this.claim = new Sql("row lock claim", statements.claim());
        this.stamp = statements.stamp() == null ? null : new Sql("row lock stamp", statements.stamp());
        this.stampRows = context.rows(stamp, statements.stampRows());
        this.ack = new Sql("ack", statements.ack());
        this.ackRows = context.rows(ack, statements.ackRows());
        this.ackAll = FormContext.ackAll(statements.ackAll());
        this.acksAndCommit = context.transactional() ? null
                : context.optional("acks and commit", statements.acksAndCommit());
        // Where the server binds connections to the task that took them, no claim waits past it.
        this.acksThenClaim = acksAndCommit == null || stamp != null || context.transactions().boundToThread() ? null
                : context.optional("acks, commit and the next claim", statements.acksCommitAndClaim());
        this.retry = statements.retry() == null ? null : new Sql("retry", statements.retry());
        this.drop = new Sql("drop", statements.drop());
        this.deadLetter = context.deadLetterSql();
        this.claimed = context.rows();
        this.relock = statements.relock() == null ? null : new Sql("row lock relock", statements.relock());
        this.count = statements.count() == null ? null : new Sql("row lock count", statements.count());
        this.inDeliveryTransaction = context.transactional() && context.transactions().boundToThread();
        if (inDeliveryTransaction && relock == null) {
            throw new InboxException(InboxException.Kind.DECLARATION, "queue " + context.queue() + ": "
                    + dialect.name() + " gives no statement to lock a row of row lock table " + spec.table()
                    + " again after a rolled-back JTA delivery, so its transactional deliveries cannot run in JTA"
                    + " transactions: give the table a lease column (locked_until) to use the lease form");
        }
    }

    @Override
    public List<Sql> statements() {
        List<Sql> all = new ArrayList<>(List.of(claim, ack, drop));
        Sql[] optionals = inDeliveryTransaction ? new Sql[] {stamp, retry, deadLetter, relock, count}
                : new Sql[] {stamp, retry, deadLetter};
        for (Sql optional : optionals) {
            if (optional != null) {
                all.add(optional);
            }
        }
        return all;
    }

    @Override
    public int rowsPerClaim(int batchSize) {
        // A transactional delivery's writes commit with its claim's transaction: one row each.
        return context.transactional() ? 1 : batchSize;
    }

    @Override
    public int claimsAtOnce(int workers, int rows) {
        return workers + 1; // each keeps a connection until its rows settle
    }

    @Override
    public int connections(int workers, int claimLoops) {
        return workers + 1;
    }

    @Override
    public boolean claimsOnWorker() {
        // Outside a delivery transaction the claim's own transaction holds the rows' locks: in a
        // server it must end in the task that began it.
        return inDeliveryTransaction || context.transactions().boundToThread();
    }

    /** A lone worker's next claim carries the acks and commit of the rows it worked: one round trip a batch. */
    @Override
    public boolean loneWorkerClaimsWhenDry(int batch) {
        return acksThenClaim != null;
    }

    @Override
    public boolean nextClaimCarriesWorked() {
        return acksThenClaim != null;
    }

    @Override
    public void carryEnds() {
        ClaimTransaction worked = takeWorkedHere();
        if (worked != null) {
            worked.settleNow();
        }
    }

    /** The claim this worker worked whose acks and commit wait for its next claim, taken; else null. */
    private ClaimTransaction takeWorkedHere() {
        ClaimTransaction worked = workedHere.get();
        if (worked != null) {
            workedHere.remove();
            waiting.decrementAndGet();
        }
        return worked;
    }

    @Override
    public boolean close(Duration wait) throws InterruptedException {
        return Waiting.until(() -> waiting.get() == 0, wait);
    }

    @Override
    public List<InFlight> claim(Instant now, int limit) throws SQLException {
        if (inDeliveryTransaction) {
            return claimInDeliveryTransaction(now);
        }
        ClaimTransaction worked = takeWorkedHere();
        if (worked != null) {
            return claimCarrying(worked, now, rowsPerClaim(limit));
        }
        Connection connection = context.connections().open();
        OpenTransaction open;
        try {
            // A transactional delivery's handler runs after a JDBC savepoint, which needs autocommit off.
            open = OpenTransaction.begin(connection, dialect, spec, !context.transactional());
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        ClaimTransaction transaction = new ClaimTransaction(open);
        try {
            List<InFlight> rows = lockDue(connection, true, now, rowsPerClaim(limit), transaction);
            if (rows.isEmpty()) {
                open.commit();
                transaction.end();
                return rows;
            }
            transaction.open = rows.size();
            return rows;
        } catch (SQLException e) {
            open.rollbackQuietly(e);
            transaction.end();
            throwIfSerializationFailure(e);
            throw e;
        } catch (RuntimeException e) {
            open.rollbackQuietly(e);
            transaction.end();
            throw e;
        }
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

    /**
     * The acks of {@code worked}, its commit and then the claim of up to {@code limit} rows in a
     * transaction begun after it, in one round trip on {@code worked}'s connection, which the new
     * claim keeps. Should the round trip fail, whether the acks took is not known (the claim after
     * their commit may be what failed): they are reported failed, and the connection goes.
     */
    private List<InFlight> claimCarrying(ClaimTransaction worked, Instant now, int limit) throws SQLException {
        OpenTransaction open = worked.transaction;
        Connection connection = worked.connection;
        ClaimTransaction next = new ClaimTransaction(open);
        List<InFlight> rows;
        try {
            rows = context.connections().prepared(connection, acksThenClaim, ps -> {
                Object[] ids = worked.acks.bindCarried(ps, acksThenClaim);
                acksThenClaim.setTime(ps, "now", dialect.stored(now), dialect);
                acksThenClaim.setInt(ps, "limit", limit);
                ps.execute();
                try (ResultSet rs = ps.getResultSet()) {
                    worked.acks.carried(rs, ids, context.reports());
                }
                Transactions.toNextResultSet(ps, "the claim carrying acks");
                try (ResultSet rs = ps.getResultSet()) {
                    return claimed.read(rs, null, next);
                }
            });
        } catch (SQLException | RuntimeException e) {
            worked.acks.fail(context.reports(), e); // those not reported from the round trip's results
            open.rollbackQuietly(e);
            worked.end();
            if (e instanceof SQLException sql) {
                throwIfSerializationFailure(sql);
            }
            throw e;
        }
        worked.ended = true; // its connection and transaction are the next claim's now
        if (rows.isEmpty()) {
            try {
                open.commit();
            } finally {
                next.end();
            }
            return rows;
        }
        next.open = rows.size();
        return rows;
    }

    /**
     * Locks up to {@code limit} due rows in the transaction open on {@code connection}, counting their
     * attempts; {@code pooled} when the connection is of the form's source, which may keep the statements.
     */
    private List<InFlight> lockDue(Connection connection, boolean pooled, Instant now, int limit, Claim holder)
            throws SQLException {
        ConnectionSource statements = pooled ? context.connections() : null;
        List<InFlight> rows = prepared(statements, connection, claim, ps -> {
            claim.setTime(ps, "now", dialect.stored(now), dialect);
            claim.setInt(ps, "limit", limit);
            try (ResultSet rs = ps.executeQuery()) {
                return claimed.read(rs, null, holder);
            }
        });
        if (rows.size() > 1 && stampRows != null) {
            stampRows.run(statements, connection, rows, dialect, (sql, ps) -> { });
        } else if (stamp != null && !rows.isEmpty()) {
            prepared(statements, connection, stamp, ps -> {
                for (InFlight row : rows) {
                    stamp.set(ps, "id", row.id());
                    ps.addBatch();
                }
                return ps.executeBatch();
            });
        }
        return rows;
    }

    private static <R> R prepared(ConnectionSource statements, Connection connection, Sql sql,
            ConnectionSource.OnStatement<R> work) throws SQLException {
        return statements == null ? ConnectionSource.preparedOnce(connection, sql, work)
                : statements.prepared(connection, sql, work);
    }

    /** A retry's or a drop's statement, where the form has one, run for {@code delivery}. */
    private InTransaction settlement(InFlight delivery, Outcome outcome, Instant now) {
        Sql sql = Settlements.of(outcome, ack, retry, drop);
        return connection -> {
            if (sql != null) {
                Settlements.run(connection, sql, delivery, outcome, now, dialect);
            }
        };
    }

    private InTransaction deadLettering(InFlight delivery, String error, Instant now) {
        return connection -> DeadLetters.move(connection, deadLetter, drop, delivery, error, now, dialect);
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
        InDeliveryTransaction holder = new InDeliveryTransaction(open);
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

    /** Work on the claim's connection, inside its transaction. */
    @FunctionalInterface
    private interface InTransaction {
        void run(Connection connection) throws SQLException;
    }

    /**
     * A row claimed inside its delivery's transaction, which belongs to the worker's thread (JTA).
     * The handler writes in it and its ack commits it, so the claim, the writes and the settlement
     * commit together. Any other outcome rolls it back, and with it the row's lock and counted
     * attempt; the row then settles in a transaction of its own once locked again. If another
     * claim took the row in between, that claim works it, and this settlement is lost to it.
     */
    private final class InDeliveryTransaction implements Claim {
        private final DeliveryTransactions.Open open;
        private final Thread owner = Thread.currentThread();
        private volatile boolean ended;

        InDeliveryTransaction(DeliveryTransactions.Open open) {
            this.open = open;
        }

        @Override
        public void ack(InFlight delivery, Instant now) {
            try {
                settleApart(delivery, c -> Settlements.run(c, ack, delivery, Outcome.ack(), now, dialect));
                context.reports().settled(delivery, Outcome.ack());
            } catch (SQLException | RuntimeException e) {
                context.reports().failed(delivery, Outcome.ack(), e);
            }
        }

        @Override
        public void settle(InFlight delivery, Outcome outcome, Instant now) throws SQLException {
            settleApart(delivery, settlement(delivery, outcome, now));
        }

        @Override
        public void deadLetter(InFlight delivery, String error, Instant now) throws SQLException {
            settleApart(delivery, deadLettering(delivery, error, now));
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
            return new OwnTransaction(new ForwardingOpen(open) {
                @Override
                public void commit() throws Exception {
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
            }, (connection, now) -> Settlements.run(connection, ack, delivery, Outcome.ack(), now, dialect), () -> { });
        }

        /**
         * Settles a delivery whose handler did not commit. Before a handler ran (a payload that
         * does not decode, attempts exhausted) that is inside the claim's transaction; after its
         * rollback, in a transaction of its own on the row locked again, its attempt counted again.
         */
        private void settleApart(InFlight delivery, InTransaction work) throws SQLException {
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
                OpenTransaction apart = OpenTransaction.begin(connection, dialect, spec, true);
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
        private void settleLockedAgain(OpenTransaction apart, InFlight delivery, InTransaction work)
                throws SQLException {
            Connection connection = apart.connection();
            try {
                if (!lockAgain(connection, delivery)) {
                    apart.commit();
                    throw new InboxException(InboxException.Kind.LEASE_LOST, "queue " + context.queue() + ": row "
                            + delivery.id() + " of table " + spec.table() + " was claimed again after its delivery"
                            + " transaction rolled back; that claim settles it");
                }
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

    /**
     * The open transaction of one claim, how many of its deliveries have yet to settle, and the
     * acks put off until the last of them, which run as one batch just before the commit.
     */
    private final class ClaimTransaction implements Claim {
        private final OpenTransaction transaction;
        private final Connection connection;
        private final AckBatch acks = context.acks(ack, ackRows, ackAll, d -> gone(d), true);
        private int open;
        private boolean settledAny;
        private boolean ended;

        ClaimTransaction(OpenTransaction transaction) {
            this.transaction = transaction;
            this.connection = transaction.connection();
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
        public void settle(InFlight delivery, Outcome outcome, Instant now) throws SQLException {
            inTransaction(delivery, settlement(delivery, outcome, now));
        }

        @Override
        public void deadLetter(InFlight delivery, String error, Instant now) throws SQLException {
            inTransaction(delivery, deadLettering(delivery, error, now));
        }

        @Override
        public synchronized boolean release(InFlight delivery, boolean started) throws SQLException {
            if (ended) {
                return false;
            }
            done(null);
            return true;
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
                    inTransaction(delivery, c -> Settlements.run(c, ack, delivery, Outcome.ack(), now, dialect));
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

        /** Settles one delivery in the claim's transaction, committing when it was the claim's last. */
        private synchronized void inTransaction(InFlight delivery, InTransaction work) throws SQLException {
            if (ended) {
                throw gone(delivery);
            }
            try {
                work.run(connection);
                settledAny = true;
                done(delivery);
            } catch (SQLException | RuntimeException e) {
                // One failed statement ends the claim: its rows go back to the queue.
                transaction.rollbackQuietly(e);
                acks.fail(context.reports(), e);
                end();
                throw e;
            }
        }

        /**
         * One delivery is done; after the last, runs the acks put off and commits what settled. Done
         * by its worker ({@code last} worked on this thread), where the next claim may carry them,
         * the acks wait for the worker's next claim, or for {@link #carryEnds} where none comes.
         */
        private void done(InFlight last) throws SQLException {
            if (--open > 0) {
                return;
            }
            if (acksThenClaim != null && !acks.isEmpty() && last != null && last.worker() == Thread.currentThread()
                    && workedHere.get() == null) {
                workedHere.set(this);
                waiting.incrementAndGet();
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
                if (!acks.isEmpty() && acksAndCommit != null) {
                    acks.writeCommitting(connection, acksAndCommit, context.reports());
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
                    + " transaction of row " + delivery.id() + " of table " + spec.table() + " was rolled back; the"
                    + " row is back in the queue");
        }
    }
}
