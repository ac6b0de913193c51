package dev.inbox.internal.broker;

import dev.inbox.InboxException;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;

/**
 * The statements of the schedule table the recurring jobs share ({@code name} primary key,
 * {@code cron}, {@code next_due}, and an optional {@code disabled_at}: when an operator disabled
 * the job on every server, NULL while it runs).
 */
final class ScheduleRows {
    private final Dialect dialect;
    private final String table;
    private final String quoted;
    /** Whether the table has {@code disabled_at}; without it no job can be disabled across servers. */
    private final boolean disabling;

    private ScheduleRows(Dialect dialect, String table, boolean disabling) {
        this.dialect = dialect;
        this.table = table;
        this.quoted = dialect.quote(table);
        this.disabling = disabling;
    }

    /**
     * The schedule table {@code table}, checked on {@code connection}.
     *
     * @throws InboxException {@code SCHEMA} where it is missing or lacks a column, naming its DDL
     */
    static ScheduleRows open(Dialect dialect, Connection connection, String table) {
        try {
            probe(dialect, connection, table, List.of("name", "cron", "next_due"));
        } catch (SQLException e) {
            throw new InboxException(InboxException.Kind.SCHEMA, "the schedule table " + table + " of the recurring"
                    + " jobs is not there or lacks columns (" + e.getMessage().trim() + "): create it as"
                    + " InboxSchema.scheduleTable() writes it, such as CREATE TABLE " + table + " (name VARCHAR(200)"
                    + " PRIMARY KEY, cron VARCHAR(200) NOT NULL, next_due " + timeType(dialect) + " NOT NULL,"
                    + " disabled_at " + timeType(dialect) + " NULL)", e);
        }
        boolean disabling;
        try {
            probe(dialect, connection, table, List.of("disabled_at"));
            disabling = true;
        } catch (SQLException e) {
            disabling = false;
        }
        return new ScheduleRows(dialect, table, disabling);
    }

    /**
     * Fails unless {@code table} has {@code columns}, asked as the dialect asks (SQLite reads a
     * missing quoted name as text).
     */
    private static void probe(Dialect dialect, Connection connection, String table, List<String> columns)
            throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.executeQuery(dialect.columnProbe(dialect.quote(table), columns.stream().map(dialect::quote).toList()))
                    .close();
        }
    }

    /**
     * The time type of the built-in dialects' tables; for a dialect of the user's, words, as the
     * pause table's message has them.
     */
    private static String timeType(Dialect dialect) {
        return switch (dialect.name()) {
            case "postgresql" -> "TIMESTAMPTZ";
            case "sqlite" -> "TEXT";
            case "mysql" -> "DATETIME";
            default -> "<the time type of your queue tables>";
        };
    }

    private String column(String name) {
        return dialect.quote(name);
    }

    /** One job's row: its expression, its next due time, and when it was disabled (null while enabled). */
    record Row(String cron, Instant due, Instant disabledAt) {}

    Row read(Connection connection, String name) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT " + column("cron") + ", " + column("next_due")
                + ", " + (disabling ? column("disabled_at") : "NULL") + " FROM " + quoted + " WHERE " + column("name")
                + " = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Row(rs.getString(1), dialect.readTime(rs, 2), dialect.readTime(rs, 3)) : null;
            }
        }
    }

    /** Writes a job's first row; fails where another server wrote it first. */
    void insert(Connection connection, String name, String cron, Instant next) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + quoted + " (" + column("name") + ", "
                + column("cron") + ", " + column("next_due") + ") VALUES (?, ?, ?)")) {
            ps.setString(1, name);
            ps.setString(2, cron);
            dialect.bindTime(ps, 3, dialect.stored(next));
            ps.executeUpdate();
        }
    }

    /** Writes this server's expression over {@code before}, with the due time that follows from it. */
    void rewrite(Connection connection, String name, String cron, Instant next, String before) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("UPDATE " + quoted + " SET " + column("cron")
                + " = ?, " + column("next_due") + " = ? WHERE " + column("name") + " = ? AND " + column("cron") + " = ?")) {
            ps.setString(1, cron);
            dialect.bindTime(ps, 2, dialect.stored(next));
            ps.setString(3, name);
            ps.setString(4, before);
            ps.executeUpdate();
        }
    }

    /**
     * Moves the job's due time from {@code due} on to {@code next}, unless another server did, its
     * expression is another, or it is disabled: true where this update did, and so publishes.
     */
    boolean advance(Connection connection, String name, String cron, Instant due, Instant next) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("UPDATE " + quoted + " SET " + column("next_due")
                + " = ? WHERE " + column("name") + " = ? AND " + column("next_due") + " = ? AND " + column("cron")
                + " = ?" + (disabling ? " AND " + column("disabled_at") + " IS NULL" : ""))) {
            dialect.bindTime(ps, 1, dialect.stored(next));
            ps.setString(2, name);
            dialect.bindTime(ps, 3, due);
            ps.setString(4, cron);
            return ps.executeUpdate() > 0;
        }
    }

    /** Disables the job on every server from {@code now}; false where it was disabled already. */
    boolean disable(Connection connection, String name, Instant now) throws SQLException {
        requireDisabling();
        try (PreparedStatement ps = connection.prepareStatement("UPDATE " + quoted + " SET " + column("disabled_at")
                + " = ? WHERE " + column("name") + " = ? AND " + column("disabled_at") + " IS NULL")) {
            dialect.bindTime(ps, 1, dialect.stored(now));
            ps.setString(2, name);
            return ps.executeUpdate() > 0;
        }
    }

    /**
     * Enables a disabled job again, due next at {@code next} (the occurrences missed while disabled
     * are not published); false where it was enabled.
     */
    boolean enable(Connection connection, String name, Instant next) throws SQLException {
        requireDisabling();
        try (PreparedStatement ps = connection.prepareStatement("UPDATE " + quoted + " SET " + column("disabled_at")
                + " = NULL, " + column("next_due") + " = ? WHERE " + column("name") + " = ? AND "
                + column("disabled_at") + " IS NOT NULL")) {
            dialect.bindTime(ps, 1, dialect.stored(next));
            ps.setString(2, name);
            return ps.executeUpdate() > 0;
        }
    }

    private void requireDisabling() {
        if (!disabling) {
            throw new InboxException(InboxException.Kind.SCHEMA, "the schedule table " + table + " has no column"
                    + " disabled_at, where a recurring job disabled on every server is kept: add it (ALTER TABLE "
                    + table + " ADD disabled_at " + timeType(dialect) + " NULL) and restart, or disable the job on one"
                    + " server by configuration");
        }
    }
}
