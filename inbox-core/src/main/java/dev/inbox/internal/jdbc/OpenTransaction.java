package dev.inbox.internal.jdbc;

import dev.inbox.InboxSpec;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * A transaction on a connection at a table's isolation, open across calls until it commits or
 * rolls back: a row lock claim's, a delivery's. It begins by the dialect's statement where the
 * dialect has one ({@link Dialect#startTransaction}: the connection stays in autocommit, a round
 * trip fewer on MySQL and MariaDB), else by the dialect's {@link Dialect#begin}, which switches
 * autocommit off. {@link #end} undoes what began it before the connection goes back to its pool;
 * a transaction still open then is rolled back, never committed by the switch back to autocommit.
 */
public abstract sealed class OpenTransaction {
    final Connection connection;
    /** Until it commits or rolls back. */
    boolean open = true;

    private OpenTransaction(Connection connection) {
        this.connection = connection;
    }

    /**
     * Begins a transaction for {@code table} on {@code connection}. With {@code byStatement} false
     * (a transaction that takes JDBC savepoints, which need autocommit off), and on a database whose
     * transactions lock it whole (SQLite, whose transactions begin in the table's mode), it
     * switches autocommit off.
     */
    public static OpenTransaction begin(Connection connection, Dialect dialect, InboxSpec table, boolean byStatement)
            throws SQLException {
        String start = byStatement && !dialect.capabilities().writeLocksDatabase() ? dialect.startTransaction() : null;
        if (start != null && connection.getAutoCommit()) {
            int before = connection.getTransactionIsolation();
            int level = dialect.deliveryIsolation(table);
            boolean changed = level >= 0 && level != before;
            if (changed) {
                connection.setTransactionIsolation(level);
            }
            Transactions.start(connection, start);
            return new Started(connection, changed ? before : -1);
        }
        int isolation = dialect.beginChangesIsolation(table) ? connection.getTransactionIsolation() : -1;
        dialect.begin(connection, table);
        return new Switched(connection, dialect, table, isolation);
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

    /** Ends what began the transaction, rolling it back first if it is still open. */
    public void end() throws SQLException {
        if (open) {
            rollback();
        }
        restore();
    }

    abstract void restore() throws SQLException;

    /** Begun by the dialect's statement, ended by a {@code COMMIT} or {@code ROLLBACK} statement. */
    private static final class Started extends OpenTransaction {
        /** The isolation to set back, or -1 where it was not changed. */
        private final int isolationBefore;

        Started(Connection connection, int isolationBefore) {
            super(connection);
            this.isolationBefore = isolationBefore;
        }

        @Override
        public void commit() throws SQLException {
            Transactions.commitStarted(connection);
            open = false;
        }

        @Override
        public void rollback() throws SQLException {
            open = false;
            Transactions.rollbackStarted(connection);
        }

        @Override
        void restore() throws SQLException {
            if (isolationBefore >= 0) {
                connection.setTransactionIsolation(isolationBefore);
            }
        }
    }

    /** Autocommit switched off by the dialect's {@link Dialect#begin}, and back on by its {@link Dialect#end}. */
    private static final class Switched extends OpenTransaction {
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
