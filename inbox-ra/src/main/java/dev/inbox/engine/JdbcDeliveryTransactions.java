package dev.inbox.engine;

import dev.inbox.InboxSpec;
import dev.inbox.SqliteMode;
import dev.inbox.engine.form.ConnectionSource;
import dev.inbox.engine.form.Transactions;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.SQLException;

/** A JDBC transaction on a connection of the broker's pool, at the table's isolation or SQLite mode. */
final class JdbcDeliveryTransactions implements DeliveryTransactions {
    private final ConnectionSource connections;
    private final Dialect dialect;

    JdbcDeliveryTransactions(ConnectionSource connections, Dialect dialect) {
        this.connections = connections;
        this.dialect = dialect;
    }

    @Override
    public Open begin(InboxSpec table) throws SQLException {
        Connection connection = connections.open();
        try {
            // SQLite's delivery transactions begin in the table's mode, through the dialect's begin.
            String start = dialect.writeLocksDatabase() ? null : dialect.startTransaction();
            if (start != null && connection.getAutoCommit()) {
                return started(connection, table, start);
            }
            int isolation = dialect.beginChangesIsolation(table) ? connection.getTransactionIsolation() : -1;
            dialect.begin(connection, table);
            return new Switched(connection, table, isolation);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /** At the delivery's isolation, by the dialect's statement: the connection stays in autocommit. */
    private Open started(Connection connection, InboxSpec table, String start) throws SQLException {
        int before = connection.getTransactionIsolation();
        int level = dialect.deliveryIsolation(table);
        boolean changed = level >= 0 && level != before;
        if (changed) {
            connection.setTransactionIsolation(level);
        }
        Transactions.start(connection, start);
        return new Base(connection) {
            /** Until it commits or rolls back: one still open as the connection goes back is rolled back. */
            private boolean open = true;

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
            void end() throws SQLException {
                if (open) {
                    rollback();
                }
                if (changed) {
                    connection.setTransactionIsolation(before);
                }
            }
        };
    }

    /** Autocommit switched off by the dialect's {@link Dialect#begin}, and back on by its {@link Dialect#end}. */
    private final class Switched extends Base {
        private final InboxSpec table;
        private final int isolation;

        Switched(Connection connection, InboxSpec table, int isolation) {
            super(connection);
            this.table = table;
            this.isolation = isolation;
        }

        @Override
        public void commit() throws SQLException {
            connection.commit();
        }

        @Override
        public void rollback() throws SQLException {
            connection.rollback();
        }

        @Override
        void end() throws SQLException {
            dialect.end(connection, table, isolation);
        }

        @Override
        public boolean locksDatabase() {
            // begin() set the table's mode: all but DEFERRED take the lock at BEGIN.
            return dialect.writeLocksDatabase() && table.mode() != SqliteMode.DEFERRED;
        }
    }

    /** The connection, given back to its pool once what began the transaction is undone. */
    private abstract static class Base implements Open {
        final Connection connection;

        Base(Connection connection) {
            this.connection = connection;
        }

        @Override
        public Connection connection() {
            return connection;
        }

        abstract void end() throws SQLException;

        @Override
        public void close() {
            try (connection) {
                end();
            } catch (SQLException e) {
                // the pool discards a broken connection
            }
        }
    }
}
