package dev.inbox.internal.form;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Acks gathered to be written together, the one way every claim form batches them: one statement
 * batch, committed once as the form commits it, stamped (where acks mark rows processed) with the
 * time of the last ack; then each delivery is reported as settled, lost (its row was no longer
 * there for it) or failed. The lease form gathers the acks of all its workers; the row lock and
 * advisory forms those of one claim, written when its last delivery is done.
 */
public final class AckBatch {

    /** Runs the batch so that it commits once; returns what the batch returns. */
    @FunctionalInterface
    public interface Commit {
        boolean[] run(Connection connection, int statements, JdbcTransaction.Work<boolean[]> batch) throws SQLException;
    }

    private final Sql ack;
    /** The acks of many rows in one statement, or null for a JDBC batch of {@code ack}. */
    private final Sql ackAll;
    /** Where there is no {@code ackAll}: the acks of a list of rows in one statement, or null. */
    private final ForRows ackRows;
    /**
     * True where a failure rolls the batch back (it commits alone), so that acks of a list of rows
     * that changed fewer run again a row at a time to tell which; false inside a claim's transaction.
     */
    private final boolean rerunsMissed;
    private final Dialect dialect;
    /** Where the acks' statements are prepared: kept prepared where the pool is the broker's. */
    private final ConnectionSource statements;
    private final Function<InFlight, InboxException> lost;
    private List<InFlight> deliveries = new ArrayList<>();
    private Instant last;

    /** @param lost the error of an ack whose row was no longer there for it */
    AckBatch(Sql ack, Sql ackAll, ForRows ackRows, boolean rerunsMissed, Dialect dialect, ConnectionSource statements,
            Function<InFlight, InboxException> lost) {
        this.ack = ack;
        this.ackAll = ackAll;
        this.ackRows = ackRows;
        this.rerunsMissed = rerunsMissed;
        this.dialect = dialect;
        this.statements = statements;
        this.lost = lost;
    }

    public void add(InFlight delivery, Instant now) {
        deliveries.add(delivery);
        last = now;
    }

    public boolean isEmpty() {
        return deliveries.isEmpty();
    }

    int size() {
        return deliveries.size();
    }

    /** Hands over what gathered and starts empty, for a writer that writes while others gather. */
    AckBatch takeAll() {
        AckBatch taken = new AckBatch(ack, ackAll, ackRows, rerunsMissed, dialect, statements, lost);
        taken.deliveries = deliveries;
        taken.last = last;
        deliveries = new ArrayList<>();
        return taken;
    }

    /**
     * Writes the acks on {@code connection} through {@code commit} and reports each; a failure
     * reports every ack failed and is thrown. Empty afterwards.
     */
    public void write(Connection connection, Commit commit, Reports reports) throws SQLException {
        if (deliveries.isEmpty()) {
            return;
        }
        writeAll(written -> written.size() < 2 || ackAll == null && ackRows == null
                ? batch(connection, commit, written)
                : ackAll != null ? commit.run(connection, 1,
                        () -> Settlements.runAll(statements, connection, ackAll, written, last, dialect))
                : rows(connection, commit, written), reports);
    }

    /**
     * Writes the acks with {@code sql}, their one statement (the statements' {@code ackAll}) followed by
     * the commit of the transaction they run in ({@code acksAndCommit}), and reports each; a
     * failure reports every ack failed and is thrown. Empty afterwards.
     */
    public void writeCommitting(Connection connection, Sql sql, Reports reports) throws SQLException {
        writeAll(written -> statements.prepared(connection, sql, ps -> {
            Object[] ids = Settlements.bindAll(ps, sql, written, last, dialect);
            ps.execute();
            try (ResultSet rs = ps.getResultSet()) {
                return Settlements.readAll(rs, ids);
            }
        }), reports);
    }

    /**
     * Writes the acks as a JDBC batch and then {@code then} in one transaction on {@code connection},
     * one commit for both: a claim that carries them where the database takes one writer at a time.
     * Reports each ack once it has committed and returns what {@code then} returned; a failure of
     * {@code then} is thrown once the acks have committed, and a failure of the transaction fails
     * every ack and is thrown. Empty afterwards.
     */
    public <R> R writeThen(Connection connection, JdbcTransaction.Work<R> then, Reports reports) throws SQLException {
        After<R> after = new After<>(then);
        writeAll(written -> JdbcTransaction.run(connection, dialect, -1, () -> {
            boolean[] took = Settlements.runBatch(statements, connection, ack, written, Outcome.ack(), last, dialect);
            after.run();
            return took;
        }), reports);
        return after.result();
    }

    /** What runs after the acks in their transaction: what it returned, or what it threw, given once they commit. */
    private static final class After<R> {
        private final JdbcTransaction.Work<R> work;
        private R result;
        private SQLException failure;

        After(JdbcTransaction.Work<R> work) {
            this.work = work;
        }

        void run() {
            try {
                result = work.run();
            } catch (SQLException e) {
                failure = e;
            }
        }

        R result() throws SQLException {
            if (failure != null) {
                throw failure;
            }
            return result;
        }
    }

    /** Writes the acks gathered, which {@code writing} does and tells for each whether it took. */
    @FunctionalInterface
    private interface Writing {
        boolean[] write(List<InFlight> written) throws SQLException;
    }

    /** Takes the acks gathered, writes them and reports each; a failure reports every ack failed and is thrown. */
    private void writeAll(Writing writing, Reports reports) throws SQLException {
        List<InFlight> written = deliveries;
        deliveries = new ArrayList<>();
        boolean[] took;
        try {
            took = writing.write(written);
        } catch (SQLException | RuntimeException e) {
            written.forEach(delivery -> reports.failed(delivery, Outcome.ack(), e));
            throw e;
        }
        report(written, took, reports);
    }

    /** Binds the acks into {@code sql}, a claim's statement that carries them; returns what {@link #carried} reads. */
    public Object[] bindCarried(PreparedStatement ps, Sql sql) throws SQLException {
        return Settlements.bindAll(ps, sql, deliveries, last, dialect);
    }

    /**
     * Reports each carried ack from {@code rs}, the result of the acks' part of the claim's
     * statement: settled where it returned the row, else lost. Empty afterwards.
     */
    public void carried(ResultSet rs, Object[] ids, Reports reports) throws SQLException {
        writeAll(written -> Settlements.readAll(rs, ids), reports);
    }

    private void report(List<InFlight> written, boolean[] took, Reports reports) {
        for (int i = 0; i < written.size(); i++) {
            if (took[i]) {
                reports.settled(written.get(i), Outcome.ack());
            } else {
                reports.lost(written.get(i), Outcome.ack(), lost.apply(written.get(i)));
            }
        }
    }

    /** The acks as a JDBC batch: a statement per row, which tells for each whether it took. */
    private boolean[] batch(Connection connection, Commit commit, List<InFlight> written) throws SQLException {
        return commit.run(connection, written.size(), () -> Settlements.runBatch(statements, connection, ack, written,
                Outcome.ack(), last, dialect));
    }

    /**
     * The acks as one statement for their rows, committed as the batch would be. Where it changed
     * fewer rows than acks (a lease ran out, say), that rolled back and the batch tells which.
     */
    private boolean[] rows(Connection connection, Commit commit, List<InFlight> written) throws SQLException {
        try {
            return commit.run(connection, written.size(), () -> Settlements.runRows(statements, connection, ackRows,
                    written, Outcome.ack(), last, dialect));
        } catch (Settlements.RowsMissed e) {
            if (!rerunsMissed) {
                throw e;
            }
            return batch(connection, commit, written);
        }
    }

    /** Reports every ack failed without writing them: their claim ended first. */
    public void fail(Reports reports, Exception cause) {
        deliveries.forEach(delivery -> reports.failed(delivery, Outcome.ack(), cause));
        deliveries.clear();
    }
}
