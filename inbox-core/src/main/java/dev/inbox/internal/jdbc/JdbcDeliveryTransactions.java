package dev.inbox.internal.jdbc;

import dev.inbox.InboxSpec;
import dev.inbox.SqliteMode;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.SQLException;

/** A JDBC transaction on a connection of the broker's pool, at the table's isolation or SQLite mode. */
public final class JdbcDeliveryTransactions implements DeliveryTransactions {
    private final ConnectionSource connections;
    private final Dialect dialect;

    public JdbcDeliveryTransactions(ConnectionSource connections, Dialect dialect) {
        this.connections = connections;
        this.dialect = dialect;
    }

    @Override
    public Open begin(InboxSpec table) throws SQLException {
        Connection connection = connections.open();
        JdbcTransaction transaction;
        try {
            transaction = JdbcTransaction.begin(connection, dialect, table, true);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        // SQLite's transactions begin in the table's mode: all but DEFERRED take the lock at BEGIN.
        boolean locksDatabase = dialect.capabilities().writeLocksDatabase() && table.mode() != SqliteMode.DEFERRED;
        return new Open() {
            @Override
            public Connection connection() {
                return connection;
            }

            @Override
            public void commit() throws SQLException {
                transaction.commit();
            }

            @Override
            public void rollback() throws SQLException {
                transaction.rollback();
            }

            @Override
            public boolean locksDatabase() {
                return locksDatabase;
            }

            @Override
            public void close() {
                try (connection) {
                    transaction.end();
                } catch (SQLException e) {
                    // the pool discards a broken connection
                }
            }
        };
    }
}
