package dev.inbox.internal.jdbc;

import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/** Runs work in one JDBC transaction on a connection, restoring its autocommit and isolation after. */
public final class Transactions {

    /** Work done inside the transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run() throws SQLException;
    }

    private Transactions() {}

    /**
     * Runs {@code work} in a transaction at {@code isolation} ({@code -1} for the connection's own),
     * commits, and rolls back when it throws.
     */
    public static <T> T run(Connection connection, int isolation, Work<T> work) throws SQLException {
        return transaction(connection, null, isolation, work);
    }

    /**
     * As {@link #run(Connection, int, Work)}, but where the dialect starts transactions with a
     * statement ({@link Dialect#startTransaction()}) the connection stays in autocommit: a round
     * trip fewer.
     */
    public static <T> T run(Connection connection, Dialect dialect, int isolation, Work<T> work) throws SQLException {
        return transaction(connection, dialect.startTransaction(), isolation, work);
    }

    /** One transaction, begun by {@code start} on an autocommit connection, else by switching autocommit off. */
    private static <T> T transaction(Connection connection, String start, int isolation, Work<T> work)
            throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        boolean started = start != null && autoCommit;
        int previous = isolation < 0 ? -1 : connection.getTransactionIsolation();
        try {
            if (isolation >= 0 && previous != isolation) {
                connection.setTransactionIsolation(isolation);
            }
            if (started) {
                start(connection, start);
            } else {
                connection.setAutoCommit(false);
            }
            T result = work.run();
            if (started) {
                commitStarted(connection);
            } else {
                connection.commit();
            }
            return result;
        } catch (SQLException | RuntimeException e) {
            if (started) {
                try {
                    rollbackStarted(connection);
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback);
                }
            } else {
                rollbackQuietly(connection, e);
            }
            throw e;
        } finally {
            if (!started) {
                connection.setAutoCommit(autoCommit);
            }
            if (isolation >= 0 && previous != isolation) {
                connection.setTransactionIsolation(previous);
            }
        }
    }

    /** Starts a transaction with {@code statement} ({@link Dialect#startTransaction()}), leaving autocommit on. */
    public static void start(Connection connection, String statement) throws SQLException {
        execute(connection, statement);
    }

    /** Commits what {@link Dialect#startTransaction()} started. */
    public static void commitStarted(Connection connection) throws SQLException {
        execute(connection, "COMMIT");
    }

    /**
     * Rolls back what {@link Dialect#startTransaction()} started. Where that fails, aborts the
     * connection (its pool then drops it), so that no open transaction goes back to the pool.
     */
    public static void rollbackStarted(Connection connection) throws SQLException {
        try {
            execute(connection, "ROLLBACK");
        } catch (SQLException e) {
            try {
                connection.abort(Runnable::run);
            } catch (SQLException | RuntimeException abort) {
                e.addSuppressed(abort);
            }
            throw e;
        }
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /**
     * Runs a batch of {@code statements} independent statements on an autocommit connection so
     * that they commit once: as they are where that is one statement or the driver commits a batch
     * once ({@link dev.inbox.spi.Capabilities#batchCommitsOnce()}), else in a transaction.
     */
    public static <T> T inOneCommit(Connection connection, Dialect dialect, int statements, Work<T> batch)
            throws SQLException {
        return statements == 1 || dialect.capabilities().batchCommitsOnce() ? batch.run() : run(connection, dialect, -1, batch);
    }

    /**
     * Moves {@code ps}, a chain of statements sent together ({@code claimCarryingAcks},
     * {@code acksCommitAndClaim}), past the update counts of what commits or begins between two
     * of its results, to the next result set; {@code what} names that result for the error where
     * none comes.
     */
    public static void toNextResultSet(PreparedStatement ps, String what) throws SQLException {
        while (!ps.getMoreResults()) {
            if (ps.getUpdateCount() == -1) {
                throw new SQLException(what + " returned no result");
            }
        }
    }

    /** Rolls back, keeping a failure of the rollback as suppressed by {@code cause}. */
    public static void rollbackQuietly(Connection connection, Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
