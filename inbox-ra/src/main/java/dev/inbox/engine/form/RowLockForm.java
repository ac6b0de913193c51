package dev.inbox.engine.form;

import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.engine.DeliveryTransactions;
import dev.inbox.engine.InFlight;
import dev.inbox.engine.Sql;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.RowLockStatements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The row lock form. A claim opens a transaction that locks its rows ({@code FOR UPDATE SKIP
 * LOCKED}) and stays open while their handlers run; each settles in it, acks put off until the
 * last, and it commits when the last of them has settled. A crashed process's rows return when
 * its connection closes and the transaction rolls back. A transactional delivery's writes go into
 * the claim's transaction, so its claim takes one row.
 */
public final class RowLockForm implements Form {
    private final FormContext context;
    private final InboxSpec spec;
    private final Dialect dialect;
    private final LeaseStatements.ClaimStyle style;
    private final Sql claim;
    private final Sql stamp;
    private final Sql ack;
    private final Sql retry;
    private final Sql drop;
    private final Sql deadLetter;
    private final ClaimedRows claimed;

    public RowLockForm(FormContext context, RowLockStatements statements) {
        this.context = context;
        this.spec = context.spec();
        this.dialect = context.dialect();
        this.style = statements.style();
        this.claim = new Sql("row lock claim", statements.claim());
        this.stamp = statements.stamp() == null ? null : new Sql("row lock stamp", statements.stamp());
        this.ack = new Sql("ack", statements.ack());
        this.retry = statements.retry() == null ? null : new Sql("retry", statements.retry());
        this.drop = new Sql("drop", statements.drop());
        this.deadLetter = context.deadLetterSql();
        this.claimed = context.rows();
    }

    @Override
    public List<Sql> statements() {
        List<Sql> all = new ArrayList<>(List.of(claim, ack, drop));
        for (Sql optional : new Sql[] {stamp, retry, deadLetter}) {
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
    public List<InFlight> claim(Instant now, int limit) throws SQLException {
        Connection connection = context.connections().open();
        int isolation;
        try {
            isolation = dialect.beginChangesIsolation(spec) ? connection.getTransactionIsolation() : -1;
            dialect.begin(connection, spec);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        ClaimTransaction transaction = new ClaimTransaction(connection, isolation);
        try {
            List<InFlight> rows;
            try (PreparedStatement ps = claim.prepare(connection)) {
                claim.setTime(ps, "now", dialect.stored(now), dialect);
                claim.setInt(ps, "limit", rowsPerClaim(limit));
                try (ResultSet rs = ps.executeQuery()) {
                    rows = claimed.read(rs, null, transaction);
                }
            }
            if (stamp != null && !rows.isEmpty()) {
                try (PreparedStatement ps = stamp.prepare(connection)) {
                    for (InFlight row : rows) {
                        stamp.set(ps, "id", row.id());
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
            }
            if (rows.isEmpty()) {
                connection.commit();
                transaction.end();
                return rows;
            }
            transaction.open = rows.size();
            return rows;
        } catch (SQLException e) {
            Transactions.rollbackQuietly(connection, e);
            transaction.end();
            if ("40001".equals(e.getSQLState())) {
                // At a level stricter than READ COMMITTED: reported as what it is.
                throw new InboxException(InboxException.Kind.DATABASE, "queue " + context.queue() + ": a claim on"
                        + " row lock table " + spec.table() + " failed with a serialization failure at isolation "
                        + spec.isolation() + "; row lock claims work at READ_COMMITTED (" + e.getMessage().trim()
                        + ")", e);
            }
            throw e;
        } catch (RuntimeException e) {
            Transactions.rollbackQuietly(connection, e);
            transaction.end();
            throw e;
        }
    }

    /** Work on the claim's connection, inside its transaction. */
    @FunctionalInterface
    private interface InTransaction {
        void run(Connection connection) throws SQLException;
    }

    /**
     * The open transaction of one claim, how many of its deliveries have yet to settle, and the
     * acks put off until the last of them, which run as one batch just before the commit.
     */
    private final class ClaimTransaction implements Claim {
        private final Connection connection;
        private final int isolationBefore;
        private final AckBatch acks = new AckBatch(ack, dialect, d -> gone(d));
        private int open;
        private boolean settledAny;
        private boolean ended;

        ClaimTransaction(Connection connection, int isolationBefore) {
            this.connection = connection;
            this.isolationBefore = isolationBefore;
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
                done();
            } catch (SQLException | RuntimeException e) {
                // reported per ack by the batch; the rows are back in the queue
            }
        }

        @Override
        public void settle(InFlight delivery, Outcome outcome, Instant now) throws SQLException {
            Sql sql = Settlements.of(outcome, ack, retry, drop);
            inTransaction(delivery, connection -> {
                if (sql != null) {
                    Settlements.run(connection, sql, delivery, outcome, now, dialect);
                }
            });
        }

        @Override
        public void deadLetter(InFlight delivery, String error, Instant now) throws SQLException {
            inTransaction(delivery, connection -> DeadLetters.move(connection, deadLetter, drop, delivery, error, now,
                    dialect));
        }

        @Override
        public synchronized boolean release(InFlight delivery, boolean started) throws SQLException {
            if (ended) {
                return false;
            }
            done();
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
                done();
            } catch (SQLException | RuntimeException e) {
                // One failed statement ends the claim: its rows go back to the queue.
                Transactions.rollbackQuietly(connection, e);
                acks.fail(context.reports(), e);
                end();
                throw e;
            }
        }

        /** One delivery is done; after the last, runs the acks put off and commits what settled. */
        private void done() throws SQLException {
            if (--open > 0) {
                return;
            }
            try {
                if (!acks.isEmpty()) {
                    acks.write(connection, (c, statements, batch) -> {
                        boolean[] took = batch.run();
                        c.commit();
                        return took;
                    }, context.reports());
                } else if (settledAny) {
                    connection.commit();
                } else {
                    connection.rollback(); // none settled: every row goes back as it was
                }
            } catch (SQLException | RuntimeException e) {
                Transactions.rollbackQuietly(connection, e);
                throw e;
            } finally {
                end();
            }
        }

        private void end() {
            ended = true;
            try (Connection c = connection) {
                dialect.end(c, spec, isolationBefore);
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
