package dev.inbox.internal.broker;

import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The engine's optional tables (paused queues, subscribers), looked for once as a broker
 * connects: where one is missing, what it serves is left out rather than refused.
 */
final class OptionalTables {

    private OptionalTables() {}

    /** True when {@code table} (quoted here) answers a query of its {@code column} on {@code connection}. */
    static boolean present(Connection connection, Dialect dialect, String table, String column) {
        try (Statement s = connection.createStatement()) {
            s.executeQuery("SELECT " + dialect.quote(column) + " FROM " + dialect.quote(table) + " WHERE 1 = 0").close();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }
}
