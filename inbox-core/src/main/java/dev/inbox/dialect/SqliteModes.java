package dev.inbox.dialect;

import dev.inbox.SqliteMode;
import java.sql.Connection;
import java.sql.SQLException;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;

/**
 * Sets how the SQLite driver begins transactions. Kept apart from {@link SqliteDialect} so the
 * driver's classes load only where SQLite is used.
 */
final class SqliteModes {
    private SqliteModes() {}

    static void set(Connection connection, SqliteMode mode) throws SQLException {
        connection.unwrap(SQLiteConnection.class).setCurrentTransactionMode(switch (mode) {
            case IMMEDIATE -> SQLiteConfig.TransactionMode.IMMEDIATE;
            case EXCLUSIVE -> SQLiteConfig.TransactionMode.EXCLUSIVE;
            default -> SQLiteConfig.TransactionMode.DEFERRED;
        });
    }
}
