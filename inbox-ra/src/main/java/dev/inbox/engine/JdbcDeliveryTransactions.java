package dev.inbox.engine;

import dev.inbox.InboxSpec;
import dev.inbox.SqliteMode;
import dev.inbox.engine.form.ConnectionSource;
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
        int isolation;
        try {
            isolation = dialect.beginChangesIsolation(table) ? connection.getTransactionIsolation() : -1;
            dialect.begin(connection, table);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return new Open() {
            @Override
            public Connection connection() {
                return connection;
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
            public void close() {
                try (connection) {
                    dialect.end(connection, table, isolation);
                } catch (SQLException e) {
                    // the pool discards a broken connection
                }
            }

            @Override
            public boolean locksDatabase() {
                // begin() set the table's mode: all but DEFERRED take the lock at BEGIN.
                return dialect.writeLocksDatabase() && table.mode() != SqliteMode.DEFERRED;
            }
        };
    }
}
