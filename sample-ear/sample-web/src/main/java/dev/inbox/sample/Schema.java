package dev.inbox.sample;

import dev.inbox.schema.InboxSchema;
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
import java.util.ArrayList;
import java.util.List;
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
            // Inbox's own tables, as InboxSchema writes them for this database.
            InboxSchema inbox = InboxSchema.of(connection).ifNotExists();
            List<String> ddl = new ArrayList<>();
            for (Class<?> queue : List.of(MakeThumbnail.class, RenderReport.class, IssueRefund.class, LedgerJob.class,
                    SendReceipt.class)) {
                ddl.addAll(inbox.queue(queue));
            }
            ddl.addAll(inbox.deadLetter(IssueRefund.class, "refund_dead"));
            // The operators' pauses (the console's Pause), shared by every server on the database.
            ddl.addAll(inbox.pauseTable());
            // The recurring jobs' next due times (the nightly report), shared by every server on the database.
            ddl.addAll(inbox.scheduleTable());
            // How each server reads each queue table: a server deployed with another description is refused.
            ddl.addAll(inbox.subscriberTable());
            for (String sql : ddl) {
                s.execute(sql);
            }
            if (!hasColumn(connection, "refund_jobs", "published_at")) {
                // A refunds queue of an earlier sample: each publish stamps it, for the oldest refund's wait.
                s.execute("ALTER TABLE refund_jobs ADD COLUMN published_at " + timeType(connection));
            }
            for (String table : List.of("refund_jobs", "refund_dead")) {
                if (!hasColumn(connection, table, "last_error")) {
                    // The tables of an earlier sample: a failing refund keeps why it failed, dead too.
                    s.execute("ALTER TABLE " + table + " ADD COLUMN last_error TEXT");
                }
            }
            if (reusesIds(connection, "refund_jobs")) {
                rebuildWithAutoincrement(connection);
            }
            s.execute("CREATE TABLE IF NOT EXISTS refunds (order_id BIGINT PRIMARY KEY, amount_cents BIGINT NOT NULL,"
                    + " node VARCHAR(100) NOT NULL)");
            if (!hasColumn(connection, "refunds", "node")) {
                // A refunds table of an earlier sample: its rows were recorded before servers were named.
                s.execute("ALTER TABLE refunds ADD COLUMN node VARCHAR(100) NOT NULL DEFAULT 'sample'");
            }
            s.execute("CREATE TABLE IF NOT EXISTS refund_retries (letter_id BIGINT NOT NULL, reason VARCHAR(500) NOT NULL)");
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
    private static void rebuildWithAutoincrement(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
        try (Statement s = connection.createStatement()) {
            s.execute("ALTER TABLE refund_jobs RENAME TO refund_jobs_old");
            for (String sql : InboxSchema.of(connection).queue(IssueRefund.class)) {
                s.execute(sql);
            }
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

    /** The type of a point in time on this database, for a column added to an earlier table. */
    private static String timeType(Connection connection) throws SQLException {
        return switch (connection.getMetaData().getDatabaseProductName()) {
            case "PostgreSQL" -> "TIMESTAMPTZ";
            case "MariaDB", "MySQL" -> "DATETIME NULL";
            default -> "TEXT";
        };
    }
}
