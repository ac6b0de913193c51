package dev.inbox.internal.jdbc;

import dev.inbox.InboxSpec;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The engine's own JDBC transactions. An instance is one open across calls until it commits or
 * rolls back (a row lock claim's, a JDBC delivery's), at a table's isolation; {@link #run} runs
 * work in one and restores the connection after. It begins by the dialect's statement where the
 * dialect has one ({@link Dialect#startTransaction}: the connection stays in autocommit, a round
 * trip fewer on MySQL and MariaDB), else by the dialect's {@link Dialect#begin}, which switches
 * autocommit off. {@link #end} undoes what began it before the connection goes back to its pool;
 * a transaction still open then is rolled back, never committed by the switch back to autocommit.
 */
public abstract sealed class JdbcTransaction {
    final Connection connection;
    /** Until it commits or rolls back. */
    boolean open = true;

    private JdbcTransaction(Connection connection) {
        this.connection = connection;
    }

    /**
     * Begins a transaction for {@code table} on {@code connection}. With {@code byStatement} false
     * (a transaction that takes JDBC savepoints, which need autocommit off), and on a database whose
     * transactions lock it whole (SQLite, whose transactions begin in the table's mode), it
     * switches autocommit off.
     */
    public static JdbcTransaction begin(Connection connection, Dialect dialect, InboxSpec table, boolean byStatement)
            throws SQLException {
        String start = byStatement && !dialect.capabilities().writeLocksDatabase() ? dialect.startTransaction() : null;
        if (start != null && connection.getAutoCommit()) {
            int before = connection.getTransactionIsolation();
            int level = dialect.deliveryIsolation(table);
            boolean changed = level >= 0 && level != before;
            if (changed) {
                connection.setTransactionIsolation(level);
            }
            start(connection, start);
            return new Started(connection, changed ? before : -1);
        }
        int isolation = dialect.beginChangesIsolation(table) ? connection.getTransactionIsolation() : -1;
        dialect.begin(connection, table);
        return new Switched(connection, dialect, table, isolation);
    }

    /** Work done inside the transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run() throws SQLException;
    }

    /**
     * Runs {@code work} in a transaction at {@code isolation} ({@code -1} for the connection's own),
     * commits, and rolls back when it throws.
     */
    public static <T> T run(Connection connection, int isolation, Work<T> work) throws SQLException {
        return transaction(connection, null, isolation, work);
    }

    /**
     * Runs {@code work} in the transaction its caller owns, where {@code callers} (a JTA transaction
     * the connection joined) or the connection is in one already (the caller's own JDBC
     * transaction), which the caller commits or rolls back; else in a transaction of its own, as
     * {@link #run}. An operator's write made inside the application's transaction so commits or
     * rolls back with the application's own writes, where switching autocommit would fail.
     */
    public static <T> T joinOrRun(Connection connection, boolean callers, Work<T> work) throws SQLException {
        return callers || !connection.getAutoCommit() ? work.run() : run(connection, -1, work);
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


    /** Rolls back, keeping a failure of the rollback as suppressed by {@code cause}. */
    public static void rollbackQuietly(Connection connection, Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    public Connection connection() {
        return connection;
    }

    public abstract void commit() throws SQLException;

    public abstract void rollback() throws SQLException;

    /** Rolls back where still open, keeping a failure of the rollback as suppressed by {@code cause}. */
    public void rollbackQuietly(Exception cause) {
        if (!open) {
            return;
        }
        try {
            rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * Marks where a step of this open transaction begins, so that {@link #undoStep} can roll back
     * the step alone: on PostgreSQL a failed statement otherwise aborts the whole transaction. Not
     * released after: a later step's savepoint of the same name takes its place.
     */
    public void beginStep() throws SQLException {
        execute(connection, "SAVEPOINT inbox_step");
    }

    /** Rolls back what was done since {@link #beginStep}; the transaction goes on. */
    public void undoStep() throws SQLException {
        execute(connection, "ROLLBACK TO SAVEPOINT inbox_step");
    }

    /** Ends what began the transaction, rolling it back first if it is still open. */
    public void end() throws SQLException {
        if (open) {
            rollback();
        }
        restore();
    }

    abstract void restore() throws SQLException;

    /** Begun by the dialect's statement, ended by a {@code COMMIT} or {@code ROLLBACK} statement. */
    private static final class Started extends JdbcTransaction {
        /** The isolation to set back, or -1 where it was not changed. */
        private final int isolationBefore;

        Started(Connection connection, int isolationBefore) {
            super(connection);
            this.isolationBefore = isolationBefore;
        }

        @Override
        public void commit() throws SQLException {
            commitStarted(connection);
            open = false;
        }

        @Override
        public void rollback() throws SQLException {
            open = false;
            rollbackStarted(connection);
        }

        @Override
        void restore() throws SQLException {
            if (isolationBefore >= 0) {
                connection.setTransactionIsolation(isolationBefore);
            }
        }
    }

    /** Autocommit switched off by the dialect's {@link Dialect#begin}, and back on by its {@link Dialect#end}. */
    private static final class Switched extends JdbcTransaction {
        private final Dialect dialect;
        private final InboxSpec table;
        private final int isolationBefore;

        Switched(Connection connection, Dialect dialect, InboxSpec table, int isolationBefore) {
            super(connection);
            this.dialect = dialect;
            this.table = table;
            this.isolationBefore = isolationBefore;
        }

        @Override
        public void commit() throws SQLException {
            connection.commit();
            open = false;
        }

        @Override
        public void rollback() throws SQLException {
            open = false;
            connection.rollback();
        }

        @Override
        void restore() throws SQLException {
            dialect.end(connection, table, isolationBefore);
        }
    }
}
