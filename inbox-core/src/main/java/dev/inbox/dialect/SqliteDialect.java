package dev.inbox.dialect;

import dev.inbox.ClaimForm;
import dev.inbox.InboxSpec;
import dev.inbox.SqliteMode;
import dev.inbox.spi.AdvisoryStatements;
import dev.inbox.spi.Capabilities;
import dev.inbox.spi.ColumnRole;
import dev.inbox.spi.ColumnType;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.TableShape;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.List;

/**
 * SQLite: one writer locks the whole database, so no claim can hold rows for a handler; the lease
 * claim is one {@code UPDATE ... RETURNING}. Times are text that sorts exactly: fixed-width UTC
 * ISO-8601 with microseconds.
 */
public final class SqliteDialect extends StandardDialect {
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    public SqliteDialect() {
        super('"');
    }

    @Override
    public String name() {
        return "sqlite";
    }

    @Override
    public boolean serves(DatabaseMetaData metaData) throws SQLException {
        return metaData.getDatabaseProductName().equalsIgnoreCase("SQLite");
    }

    /** The forms that hold nothing open on the database; one writer at a time locks it whole. */
    private static final Capabilities CAPABILITIES = Capabilities.of(EnumSet.of(ClaimForm.LEASE, ClaimForm.ADVISORY),
            128).writesLockDatabase();

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    /** SQLite has {@code substr}, not SQL's {@code SUBSTRING ... FROM ... FOR}. */
    @Override
    public String head(String column, boolean binary) {
        return "substr(" + column + ", 1, :head)";
    }

    /** SQLite has {@code instr}, not SQL's {@code POSITION}; on a blob and bytes it compares bytes. */
    @Override
    public String contains(String column, boolean binary) {
        return "instr(" + column + ", :text) > 0";
    }

    /** {@code length} counts a text's characters: its bytes are those of the text as a blob. */
    @Override
    public String octetLength(String column, boolean binary) {
        return "length(CAST(" + column + " AS BLOB))";
    }

    @Override
    public List<String> connectionInitSql() {
        return List.of("PRAGMA busy_timeout = 10000");
    }

    @Override
    public void begin(Connection connection, InboxSpec table) throws SQLException {
        // IMMEDIATE takes the write lock at BEGIN: a deferred transaction that reads first may find
        // its snapshot stale when it writes, and fail at once.
        SqliteModes.set(connection, table.mode() == SqliteMode.DEFAULT ? SqliteMode.IMMEDIATE : table.mode());
        connection.setAutoCommit(false);
    }

    /**
     * The engine's own transactions (a batch of acks, of attempts counted) take the write lock at
     * BEGIN, inside the process's write gate: two statements, where the driver's switch of
     * autocommit runs four (BEGIN, COMMIT and BEGIN at commit, COMMIT again).
     */
    @Override
    public String startTransaction() {
        return "BEGIN IMMEDIATE";
    }

    @Override
    public void end(Connection connection, InboxSpec table, int isolationBefore) throws SQLException {
        connection.setAutoCommit(true);
        SqliteModes.set(connection, SqliteMode.DEFERRED);
    }

    @Override
    protected AdvisoryStatements advisoryStatements(TableShape t) {
        // One process's locks: kept in the process, not in the database.
        return advisoryWithLocks(t, null, null, null);
    }

    /** A column's declared type is an affinity: SQLite keeps a text or blob of any length in it. */
    @Override
    public boolean keepsDeclaredLengths() {
        return false;
    }

    /**
     * Each column named with its table: SQLite reads a double-quoted name that matches no column as
     * a string, so {@code SELECT "missing" FROM t} prepares, where {@code t."missing"} fails.
     */
    @Override
    public String columnProbe(String table, List<String> columns) {
        return "SELECT " + String.join(", ", columns.stream().map(c -> table + "." + c).toList()) + " FROM " + table
                + " WHERE 1 = 0";
    }

    /** SQLite has its transaction modes instead of isolation levels. */
    @Override
    public int deliveryIsolation(InboxSpec table) {
        return -1;
    }

    @Override
    public String takeWriteLock(TableShape t) {
        // Any write statement takes the lock when it starts, even one that matches no row.
        return "DELETE FROM " + t.table() + " WHERE 0 = 1";
    }

    /**
     * Times as ISO-8601 text, which sorts as it compares: a column of INTEGER or REAL affinity
     * suggests numbers the engine would never write there.
     */
    @Override
    public String columnProblem(ColumnRole role, ColumnType type) {
        String name = type.name().toUpperCase(java.util.Locale.ROOT);
        if (name.isEmpty()) {
            return null; // no declared type: the column keeps what is written
        }
        if (role == ColumnRole.TEXT) {
            // SQLite's text affinity, as its rules read a declared type.
            return name.contains("CHAR") || name.contains("CLOB") || name.contains("TEXT") ? null
                    : "is " + name + ", not text: use TEXT";
        }
        boolean integer = name.contains("INT");
        if (role == ColumnRole.COUNTER) {
            return integer ? null : "is " + name + ", not a whole number: use INTEGER";
        }
        if (integer || name.contains("REAL") || name.contains("FLOA") || name.contains("DOUB")) {
            return "is " + name + ", a number, where the engine keeps times as ISO-8601 text: use TEXT";
        }
        return null;
    }

    @Override
    public Instant stored(Instant time) {
        return time.truncatedTo(ChronoUnit.MICROS);
    }

    @Override
    public void bindTime(PreparedStatement statement, int index, Instant time) throws SQLException {
        if (time == null) {
            statement.setNull(index, Types.VARCHAR);
        } else {
            statement.setString(index, format(time));
        }
    }

    @Override
    public boolean reusesIds(Connection connection, TableShape table) throws SQLException {
        String name = table.spec().table();
        name = name.substring(name.lastIndexOf('.') + 1);
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                // Without AUTOINCREMENT a rowid is max(rowid) + 1: the id of the last row deleted comes again.
                return rs.next() && rs.getString(1) != null
                        && !rs.getString(1).toUpperCase(java.util.Locale.ROOT).contains("AUTOINCREMENT");
            }
        }
    }

    /** The operating system's clock, as SQLite reads it: on the host, as the database is. */
    @Override
    public String clockQuery() {
        return "SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
    }

    @Override
    public Instant readTime(ResultSet rs, int column) throws SQLException {
        String text = rs.getString(column);
        try {
            return text == null ? null : Instant.parse(text);
        } catch (java.time.format.DateTimeParseException e) {
            return null; // written by something other than Inbox: no time rather than no depth
        }
    }

    /** The text SQLite keeps for {@code time}. */
    public static String format(Instant time) {
        return TIME.format(time);
    }

    @Override
    protected LeaseStatements leaseClaim(TableShape t, String extend, String ack, String retry, String drop) {
        String claim = "UPDATE " + t.table() + " SET " + leaseStamp(t) + " WHERE " + t.id() + " IN (SELECT " + t.id()
                + " FROM " + t.table() + " WHERE " + leaseDue(t) + " ORDER BY " + claimOrder(t)
                + " LIMIT :limit) RETURNING " + claimResult(t, "", true);
        return new LeaseStatements(LeaseStatements.ClaimStyle.RETURNING, claim, null, extend, ack, retry, drop);
    }

    /**
     * A batch as one multi-row insert that returns its rows' ids: the driver gives no generated keys
     * for a JDBC batch, and one statement costs less than its rows one by one.
     */
    @Override
    public String insertRows(TableShape t, int rows) {
        return multiRowInsert(t, rows) + " RETURNING " + t.id();
    }

    /** A conflict on any unique index (the key's, or the id's) inserts nothing; other constraints still fail. */
    @Override
    public String insertUnique(TableShape t) {
        return insert(t) + " ON CONFLICT DO NOTHING";
    }

    /**
     * The driver runs a statement with a query timeout under a busy timeout of as long, so a lock
     * that outlasts it ends the statement as busy (5) or locked (6).
     */
    @Override
    public boolean timedOut(SQLException e) {
        return e.getErrorCode() == 5 || e.getErrorCode() == 6 || super.timedOut(e);
    }
}
