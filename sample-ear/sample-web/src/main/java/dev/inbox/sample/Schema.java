package dev.inbox.sample;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Creates the sample's tables when the application starts, before Inbox opens its handlers (which
 * check the tables), and outside any transaction (MariaDB refuses DDL in an enlisted one). The
 * server activates the message-driven {@link LedgerBean} earlier still: its subscription opens once
 * {@code ledger_jobs} is here.
 */
@ApplicationScoped
public class Schema {

    @Inject
    DataSource dataSource;

    void create(@Observes @Priority(Interceptor.Priority.LIBRARY_BEFORE) @Initialized(ApplicationScoped.class)
            Object started) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement s = connection.createStatement()) {
            Types t = Types.of(connection.getMetaData().getDatabaseProductName());
            for (String queue : new String[] {"thumbnail_jobs", "report_jobs", "refund_jobs", "ledger_jobs"}) {
                s.execute("CREATE TABLE IF NOT EXISTS " + queue + " (id " + t.id + ", attempt SMALLINT NOT NULL DEFAULT 1,"
                        + " locked_until " + t.time + ", payload " + t.blob + " NOT NULL)");
            }
            s.execute("CREATE TABLE IF NOT EXISTS receipt_jobs (id " + t.id + ", locked_until " + t.time + ", payload "
                    + t.blob + " NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS refund_dead (id BIGINT PRIMARY KEY, payload " + t.blob + " NOT NULL,"
                    + " attempt INTEGER NOT NULL, error TEXT NOT NULL, failed_at " + t.time + " NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS refunds (order_id BIGINT PRIMARY KEY, amount_cents BIGINT NOT NULL,"
                    + " node VARCHAR(100) NOT NULL)");
            if (!hasColumn(connection, "refunds", "node")) {
                // A refunds table of an earlier sample: its rows were recorded before servers were named.
                s.execute("ALTER TABLE refunds ADD COLUMN node VARCHAR(100) NOT NULL DEFAULT 'sample'");
            }
            s.execute("CREATE TABLE IF NOT EXISTS receipts_mailed (order_id BIGINT NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS ledger (order_id BIGINT NOT NULL, amount_cents BIGINT NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS thumbnails_rendered (path VARCHAR(500) NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS reports_rendered (name VARCHAR(500) NOT NULL)");
        }
    }

    private static boolean hasColumn(Connection connection, String table, String column) throws SQLException {
        try (ResultSet columns = connection.getMetaData().getColumns(connection.getCatalog(), null, table, column)) {
            return columns.next();
        }
    }

    /** Column types of each database. */
    private record Types(String id, String time, String blob) {
        static Types of(String product) {
            return switch (product) {
                case "PostgreSQL" -> new Types("BIGSERIAL PRIMARY KEY", "TIMESTAMPTZ", "BYTEA");
                case "MariaDB", "MySQL" -> new Types("BIGINT AUTO_INCREMENT PRIMARY KEY", "DATETIME NULL", "BLOB");
                default -> new Types("INTEGER PRIMARY KEY", "TEXT", "BLOB");
            };
        }
    }
}
