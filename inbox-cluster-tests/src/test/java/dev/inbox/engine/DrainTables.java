package dev.inbox.engine;

import dev.inbox.ClaimForm;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * The tables of a drain: a queue table described for each claim form, and the effect rows a
 * transactional handler writes, one per delivery; and what they hold after the drain.
 */
final class DrainTables {
    private DrainTables() {}

    /** A queue table with a generated id and attempt, in {@code form}. */
    static InboxSpec spec(String table, ClaimForm form) {
        InboxSpec spec = InboxSpec.table(table, Column.of("id").generated()).payload(Column.of("payload"))
                .attempt(Column.of("attempt").generated());
        return switch (form) {
            case LEASE -> spec.lease(Column.of("locked_until"));
            case ADVISORY -> spec.advisoryLock(Column.of("advisory_lock")).retryAfter(Column.of("retry_after"));
            case ROW_LOCK -> spec.retryAfter(Column.of("retry_after"));
        };
    }

    /** The effect table, afresh. No key on n: an effect written twice must show, not fail its second transaction. */
    static void create(Statement s, String effects) throws SQLException {
        s.execute("DROP TABLE IF EXISTS " + effects);
        s.execute("CREATE TABLE " + effects + " (n INTEGER NOT NULL)");
    }

    /** How many effect rows each job has. */
    static Map<Integer, Integer> byJob(String url, String effects) throws SQLException {
        Map<Integer, Integer> byJob = new HashMap<>();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT n, count(*) FROM " + effects + " GROUP BY n")) {
            while (rs.next()) {
                byJob.put(rs.getInt(1), rs.getInt(2));
            }
        }
        return byJob;
    }

    /** The rows of {@code table}, or -1 where the database does not answer. */
    static long rows(String url, String table) {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            return -1;
        }
    }
}
