package dev.inbox.engine.form;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.engine.InFlight;
import dev.inbox.engine.Sql;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.RowLockStatements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The row lock form. A claim opens a transaction that locks its rows ({@code FOR UPDATE SKIP
 * LOCKED}) and stays open while their handlers run; each settles in it, and it commits when the
 * last of them has settled. A crashed process's rows return when its connection closes and the
 * transaction rolls back.
 */
public final class RowLockForm implements Form {
    private final String queue;
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
    private final boolean oneRowPerTransaction;

    /**
     * @param deadLetter           the dead-letter insert, or null
     * @param oneRowPerTransaction true for transactional deliveries, whose transaction is the claim's
     */
    public RowLockForm(String queue, InboxSpec spec, Dialect dialect, RowLockStatements statements, String deadLetter,
            boolean binaryPayload, ObjectMapper json, boolean oneRowPerTransaction) {
        this.queue = queue;
        this.spec = spec;
        this.dialect = dialect;
        this.style = statements.style();
        this.claim = new Sql("row lock claim", statements.claim());
        this.stamp = statements.stamp() == null ? null : new Sql("row lock stamp", statements.stamp());
        this.ack = new Sql("ack", statements.ack());
        this.retry = statements.retry() == null ? null : new Sql("retry", statements.retry());
        this.drop = new Sql("drop", statements.drop());
        this.deadLetter = deadLetter == null ? null : new Sql("dead letter", deadLetter);
        this.claimed = new ClaimedRows(queue, spec.table(), binaryPayload, json);
        this.oneRowPerTransaction = oneRowPerTransaction;
    }

    /**
     * The open transaction of one claim, how many of its deliveries have yet to settle, and the
     * acks put off until the last of them: they run as one batch just before the commit, stamped
     * (where acks mark rows processed) with the time of the last.
     */
    private static final class Hold {
        final Connection connection;
        final int isolationBefore;
        final List<InFlight> acks = new ArrayList<>();
        Instant lastAck;
        int open;
        boolean settledAny;
        boolean ended;

        Hold(Connection connection, int isolationBefore, int open) {
            this.connection = connection;
            this.isolationBefore = isolationBefore;
            this.open = open;
        }
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

    /** A claim holds its transaction open; transactional deliveries take one row each. */
    private int claimLimit(int wanted) {
        return oneRowPerTransaction ? 1 : wanted;
    }

    @Override
    public List<InFlight> claim(ConnectionSource connections, Instant now, int limit) throws SQLException {
        Connection connection = connections.open();
        int isolation;
        try {
            isolation = dialect.beginChangesIsolation(spec) ? connection.getTransactionIsolation() : -1;
            dialect.begin(connection, spec);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        try {
            List<InFlight> rows;
            try (PreparedStatement ps = claim.prepare(connection)) {
                claim.setTime(ps, "now", dialect.stored(now), dialect);
                claim.setInt(ps, "limit", claimLimit(limit));
                try (ResultSet rs = ps.executeQuery()) {
                    rows = claimed.read(rs, null);
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
                end(new Hold(connection, isolation, 0));
                return rows;
            }
            Hold hold = new Hold(connection, isolation, rows.size());
            rows.forEach(row -> row.hold(hold));
            return rows;
        } catch (SQLException e) {
            Transactions.rollbackQuietly(connection, e);
            end(new Hold(connection, isolation, 0));
            if ("40001".equals(e.getSQLState())) {
                // At a level stricter than READ COMMITTED: reported as what it is.
                throw new InboxException(InboxException.Kind.DATABASE, "queue " + queue + ": a claim on row lock"
                        + " table " + spec.table() + " failed with a serialization failure at isolation "
                        + spec.isolation() + "; row lock claims work at READ_COMMITTED (" + e.getMessage().trim()
                        + ")", e);
            }
            throw e;
        } catch (RuntimeException e) {
            Transactions.rollbackQuietly(connection, e);
            end(new Hold(connection, isolation, 0));
            throw e;
        }
    }

    @Override
    public boolean claimsOneRow() {
        return oneRowPerTransaction;
    }

    @Override
    public boolean claimsHoldConnections() {
        return true;
    }

    @Override
    public Connection transactionOf(InFlight delivery) {
        return oneRowPerTransaction ? hold(delivery).connection : null;
    }

    private static Hold hold(InFlight delivery) {
        return (Hold) delivery.hold();
    }

    @Override
    public void settle(ConnectionSource connections, InFlight delivery, Outcome outcome, Instant now)
            throws SQLException {
        if (outcome.kind() == Outcome.Kind.ACK && !oneRowPerTransaction) {
            // The row stays locked by the claim's transaction, so its ack can wait for the others'.
            inHold(delivery, connection -> {
                Hold hold = hold(delivery);
                hold.acks.add(delivery);
                hold.lastAck = now;
            });
            return;
        }
        Sql sql = Settlements.of(outcome, ack, retry, drop);
        inHold(delivery, connection -> {
            if (sql != null) {
                Settlements.run(connection, sql, delivery, outcome, now, dialect);
            }
        });
    }

    @Override
    public void deadLetter(ConnectionSource connections, InFlight delivery, String error, Instant now)
            throws SQLException {
        inHold(delivery, connection -> DeadLetters.move(connection, deadLetter, drop, delivery, error, now, dialect));
    }

    @Override
    public boolean release(ConnectionSource connections, InFlight delivery, boolean started) throws SQLException {
        Hold hold = hold(delivery);
        synchronized (hold) {
            if (hold.ended) {
                return false;
            }
            hold.open--;
            if (hold.open == 0) {
                finish(hold);
            }
            return true;
        }
    }

    /** Settles one delivery in its claim's transaction, committing when it was the claim's last. */
    private void inHold(InFlight delivery, Settlements.OnConnection work) throws SQLException {
        Hold hold = hold(delivery);
        synchronized (hold) {
            if (hold.ended) {
                throw new InboxException(InboxException.Kind.DATABASE, "queue " + queue + ": the claim transaction"
                        + " of row " + delivery.id() + " of table " + spec.table() + " was rolled back; the row is"
                        + " back in the queue");
            }
            try {
                work.run(hold.connection);
                hold.settledAny = true;
                hold.open--;
                if (hold.open == 0) {
                    finish(hold);
                }
            } catch (SQLException | RuntimeException e) {
                // One failed statement ends the claim: its rows go back to the queue.
                Transactions.rollbackQuietly(hold.connection, e);
                end(hold);
                throw e;
            }
        }
    }

    /** Runs the acks put off, and commits what settled; rolls back a claim none of whose deliveries settled. */
    private void finish(Hold hold) throws SQLException {
        try {
            if (!hold.acks.isEmpty()) {
                Settlements.runBatch(hold.connection, ack, hold.acks, Outcome.ack(), hold.lastAck, dialect);
            }
            if (hold.settledAny) {
                hold.connection.commit();
            } else {
                hold.connection.rollback();
            }
        } catch (SQLException | RuntimeException e) {
            Transactions.rollbackQuietly(hold.connection, e);
            throw e;
        } finally {
            end(hold);
        }
    }

    private void end(Hold hold) {
        hold.ended = true;
        try (Connection connection = hold.connection) {
            dialect.end(connection, spec, hold.isolationBefore);
        } catch (SQLException e) {
            // the pool discards a broken connection
        }
    }
}
