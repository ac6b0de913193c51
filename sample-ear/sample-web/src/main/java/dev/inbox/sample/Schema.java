package dev.inbox.sample;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
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
            if (!hasColumn(connection, "refund_jobs", "published_at")) {
                // Each publish stamps it: the metrics and QueueStats tell how long the oldest refund has waited.
                s.execute("ALTER TABLE refund_jobs ADD COLUMN published_at " + t.time);
            }
            if (reusesIds(connection, "refund_jobs")) {
                rebuildWithAutoincrement(connection, t);
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
            // The operators' pauses (the console's Pause), shared by every server on the database.
            s.execute("CREATE TABLE IF NOT EXISTS inbox_paused (queue VARCHAR(200) PRIMARY KEY, paused_at " + t.time
                    + " NOT NULL)");
            // The recurring jobs' next due times (the nightly report), shared by every server on the database.
            s.execute("CREATE TABLE IF NOT EXISTS inbox_schedule (name VARCHAR(200) PRIMARY KEY, cron VARCHAR(200)"
                    + " NOT NULL, next_due " + t.time + " NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS receipts_mailed (order_id BIGINT NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS ledger (order_id BIGINT NOT NULL, amount_cents BIGINT NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS thumbnails_rendered (path VARCHAR(500) NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS reports_rendered (name VARCHAR(500) NOT NULL)");
        }
    }

    /** A SQLite table whose ids come again once deleted (no AUTOINCREMENT): Inbox refuses its dead-letter table. */
    private static boolean reusesIds(Connection connection, String table) throws SQLException {
        if (!connection.getMetaData().getDatabaseProductName().equals("SQLite")) {
            return false;
        }
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && !rs.getString(1).toUpperCase(Locale.ROOT).contains("AUTOINCREMENT");
            }
        }
    }

    /** The refunds queue of an earlier sample on SQLite, rebuilt with AUTOINCREMENT; its rows kept. */
    private static void rebuildWithAutoincrement(Connection connection, Types t) throws SQLException {
        connection.setAutoCommit(false);
        try (Statement s = connection.createStatement()) {
            s.execute("ALTER TABLE refund_jobs RENAME TO refund_jobs_old");
            s.execute("CREATE TABLE refund_jobs (id " + t.id + ", attempt SMALLINT NOT NULL DEFAULT 1, locked_until "
                    + t.time + ", payload " + t.blob + " NOT NULL, published_at " + t.time + ")");
            s.execute("INSERT INTO refund_jobs (id, attempt, locked_until, payload, published_at)"
                    + " SELECT id, attempt, locked_until, payload, published_at FROM refund_jobs_old");
            s.execute("DROP TABLE refund_jobs_old");
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
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
                default -> new Types("INTEGER PRIMARY KEY AUTOINCREMENT", "TEXT", "BLOB");
            };
        }
    }
}
