package dev.inbox.dialect;

import dev.inbox.ClaimForm;
import dev.inbox.Column;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.spi.AdvisoryStatements;
import dev.inbox.spi.Capabilities;
import dev.inbox.spi.ColumnRole;
import dev.inbox.spi.ColumnType;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.RowLockStatements;
import dev.inbox.spi.TableShape;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** PostgreSQL: a lease claim is one statement that locks due rows with SKIP LOCKED, leases and returns them. */
public final class PostgresDialect extends StandardDialect {
    /** Id column types (as the driver names them) and the type their text is cast to. */
    private static final Map<String, String> ID_TYPES = Map.of("int8", "bigint", "bigserial",
            "bigint", "int4", "integer", "serial", "integer", "int2", "smallint", "uuid", "uuid", "text", "text",
            "varchar", "text");

    public PostgresDialect() {
        super('"');
    }

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public boolean serves(DatabaseMetaData metaData) throws SQLException {
        return metaData.getDatabaseProductName().equalsIgnoreCase("PostgreSQL");
    }

    /** Every form; pgjdbc sends a batch's statements with one Sync, which ends the implicit transaction. */
    private static final Capabilities CAPABILITIES = Capabilities.of(EnumSet.allOf(ClaimForm.class), 63)
            .batchesCommitOnce().readingDatabaseClock().notifying();

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    /** A JSON or JSONB payload column has no substring: its text has. */
    @Override
    public String head(String column, boolean binary) {
        return "SUBSTRING(" + column + (binary ? "" : "::text") + " FROM 1 FOR :head)";
    }

    @Override
    public String octetLength(String column, boolean binary) {
        return "OCTET_LENGTH(" + column + (binary ? "" : "::text") + ")";
    }

    /** A JSON or JSONB payload column is searched in its text. */
    @Override
    public String contains(String column, boolean binary) {
        return "POSITION(:text IN " + column + (binary ? "" : "::text") + ") > 0";
    }

    @Override
    public String listenChannel(String table) {
        // Table names are plain identifiers, so the channel is one too.
        String channel = "inbox_" + table.replace('.', '_').toLowerCase(java.util.Locale.ROOT);
        return channel.length() <= 63 ? channel : channel.substring(0, 63);
    }

    @Override
    public String notifyStatement() {
        return "SELECT pg_notify(:channel, '')";
    }

    @Override
    public String listen(String channel) {
        return "LISTEN " + channel;
    }

    @Override
    public String unlistenAll() {
        return "UNLISTEN *";
    }

    @Override
    public List<String> awaitNotifications(Connection listening, Duration timeout) throws SQLException {
        return PgNotifications.await(listening, timeout);
    }

    /**
     * Times in TIMESTAMPTZ, to the microsecond where they are a lease's token: a TIMESTAMP without
     * time zone is read in each session's zone, so servers in two zones disagree about every time.
     */
    @Override
    public String columnProblem(ColumnRole role, ColumnType type) {
        String name = type.name();
        if (role == ColumnRole.TEXT) {
            return Set.of("text", "varchar").contains(name) ? null : "is " + name + ", not text: use TEXT";
        }
        if (role == ColumnRole.COUNTER) {
            return Set.of("int2", "int4", "int8").contains(name) ? null : "is " + name + ", not a whole number: use INTEGER";
        }
        if (name.equals("timestamp")) {
            return "is TIMESTAMP WITHOUT TIME ZONE, whose times each session reads in its own time zone, so servers"
                    + " in different zones disagree about them: use TIMESTAMPTZ";
        }
        if (!name.equals("timestamptz")) {
            return "is " + name + ", which cannot hold a time to the microsecond: use TIMESTAMPTZ";
        }
        if (role == ColumnRole.LEASE && type.scale() < 6) {
            return "is TIMESTAMPTZ(" + type.scale() + "), which rounds the lease's deadline, the token every ack and"
                    + " extension must find again: use TIMESTAMPTZ (six fractional digits)";
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
            statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            statement.setObject(index, OffsetDateTime.ofInstant(time, ZoneOffset.UTC));
        }
    }

    @Override
    protected LeaseStatements leaseClaim(TableShape t, String extend, String ack, String retry, String drop) {
        // The CTE runs its locking select once, so a claim never leases more than :limit rows.
        String claim = "WITH due AS (SELECT " + t.id() + " FROM " + t.table() + " WHERE " + leaseDue(t)
                + " ORDER BY " + claimOrder(t) + " LIMIT :limit FOR UPDATE SKIP LOCKED)"
                + " UPDATE " + t.table() + " AS q SET " + leaseStamp(t) + " FROM due WHERE q." + t.id() + " = due."
                + t.id() + " RETURNING " + claimResult(t, "q.", true);
        return new LeaseStatements(LeaseStatements.ClaimStyle.RETURNING, claim, null, extend, ack, retry, drop);
    }

    /**
     * The rows joined from the arrays of ids and tokens: one statement and one round of the
     * executor where a batch runs the ack once per row. Null where the id column's type is not one
     * a cast from text reaches exactly.
     */
    /**
     * This dialect's statements of one row {@code :id} that name no token (the advisory take, the
     * attempts counted) for the rows of {@code :rows}, an array of ids as text cast to the id's
     * type: {@code <id> = ANY(...)}. (The lease form's settlements have {@link #ackAll}.) Null for
     * any other statement, and where the id column has a type the array is not cast to.
     */
    @Override
    protected String forRows(TableShape t, String perRow) {
        String idType = ID_TYPES.get(t.typeName(t.spec().id()));
        String where = " WHERE " + t.id() + " = :id";
        int at = perRow.indexOf(where);
        if (idType == null || at < 0 || perRow.contains(":token")) {
            return null;
        }
        String rest = perRow.substring(at + where.length());
        if (!rest.isEmpty() && !rest.startsWith(" AND ")) {
            return null;
        }
        return perRow.substring(0, at) + " WHERE " + t.id() + " = ANY(CAST(:rows AS " + idType + "[]))" + rest;
    }

    /**
     * The ids as one array, which the statement casts to the id's type: integers as a {@code bigint}
     * array (PgJDBC sends a {@code long[]} as it is, where an array of text took each id's text, a
     * type looked up by name and the server's cast of each element), else as text.
     */
    @Override
    public void bindRows(PreparedStatement statement, int index, Object[] ids, Instant[] tokens)
            throws SQLException {
        long[] numbers = integers(ids);
        if (numbers != null) {
            statement.setObject(index, numbers);
            return;
        }
        String[] texts = new String[ids.length];
        for (int i = 0; i < ids.length; i++) {
            texts[i] = String.valueOf(ids[i]);
        }
        statement.setArray(index, statement.getConnection().createArrayOf("varchar", texts));
    }

    /** The ids as longs where each is a Long, Integer or Short (an integer column's); else null. */
    private static long[] integers(Object[] ids) {
        long[] numbers = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            if (!(ids[i] instanceof Long || ids[i] instanceof Integer || ids[i] instanceof Short)) {
                return null;
            }
            numbers[i] = ((Number) ids[i]).longValue();
        }
        return numbers;
    }

    @Override
    protected String ackAll(TableShape t, boolean leased) {
        String idType = ID_TYPES.get(t.typeName(t.spec().id()));
        if (idType == null) {
            return null;
        }
        String lease = leased ? t.name(t.spec().lease().orElseThrow()) : null;
        String rows = "unnest(CAST(:ids AS " + idType + "[])" + (leased ? ", CAST(:tokens AS varchar[])" : "")
                + ") AS a(id" + (leased ? ", token" : "") + ")";
        String where = " WHERE q." + t.id() + " = a.id"
                + (leased ? " AND q." + lease + " = CAST(a.token AS timestamptz)" : "") + " RETURNING q." + t.id();
        return t.name(t.spec().processedAt())
                .map(p -> "UPDATE " + t.table() + " AS q SET " + p + " = "
                        + (leased ? ":processed, " + lease + " = NULL" : stamp(t, "processed"))
                        + " FROM " + rows + where)
                .orElse("DELETE FROM " + t.table() + " AS q USING " + rows + where);
    }

    /**
     * The two with {@code BEGIN; COMMIT} between. PgJDBC sends the statements of one string
     * together with one Sync after the last, and until the Sync they share an implicit
     * transaction: the {@code BEGIN} makes it a block that holds {@code first}, which the
     * {@code COMMIT} ends (a {@code COMMIT} alone ends it too, with a warning whose exception
     * the driver builds on each claim), and {@code then} runs in a transaction of its own. A
     * failure of {@code first} skips the rest to the Sync, where what it began rolls back.
     */
    @Override
    protected String chain(String first, String then) {
        return first + "; BEGIN; COMMIT; " + then;
    }

    /**
     * The statement and a {@code COMMIT}, which PgJDBC sends together; the driver reads the
     * transaction's end from the server's reply, so a {@code commit()} after it sends nothing.
     */
    @Override
    protected String withCommit(String statement) {
        return statement + "; COMMIT";
    }

    /**
     * The three with {@code COMMIT; BEGIN} between: PgJDBC sends them with one Sync, and the
     * {@code BEGIN} opens a block that outlives it. A failure skips the rest to the Sync; the
     * block it failed in is left aborted, for the driver's rollback.
     */
    @Override
    protected String withCommitThen(String statement, String next) {
        return statement + "; COMMIT; BEGIN; " + next;
    }

    @Override
    public String clockQuery() {
        return "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";
    }

    /** The time the statement began, the same for every row it touches. */
    @Override
    protected String databaseNow() {
        return "statement_timestamp()";
    }

    @Override
    protected String databaseDeadline(String milliseconds) {
        return "(statement_timestamp() + CAST(" + milliseconds + " AS BIGINT) * INTERVAL '1 millisecond')";
    }

    @Override
    protected RowLockStatements rowLockStatements(TableShape t) {
        String select = "SELECT " + t.id() + " FROM " + t.table() + " WHERE " + due(t) + " ORDER BY " + claimOrder(t)
                + " LIMIT :limit FOR UPDATE SKIP LOCKED";
        String claim = t.name(t.spec().attempt())
                .map(a -> "WITH due AS (" + select + ") UPDATE " + t.table() + " AS q SET " + a + " = " + nextAttempt(t)
                        + " FROM due WHERE q." + t.id() + " = due." + t.id() + " RETURNING "
                        + claimResult(t, "q.", true))
                .orElse("SELECT " + claimResult(t, "", false) + " FROM " + t.table() + " WHERE " + due(t)
                        + " ORDER BY " + claimOrder(t) + " LIMIT :limit FOR UPDATE SKIP LOCKED");
        return rowLockSettlements(t, LeaseStatements.ClaimStyle.RETURNING, claim, null);
    }

    @Override
    protected AdvisoryStatements advisoryStatements(TableShape t) {
        return advisoryWithLocks(t, this::tryAdvisoryLock, advisoryUnlock(),
                "SELECT pg_advisory_unlock_all()");
    }

    @Override
    protected String advisoryKeyText(String column) {
        return column + "::text";
    }

    @Override
    protected String tryAdvisoryLock(String key) {
        return "pg_try_advisory_lock(hashtextextended(:prefix || " + key + ", 0))";
    }

    @Override
    protected String advisoryUnlock() {
        return "SELECT pg_advisory_unlock(hashtextextended(:key, 0))";
    }

    /** Statements named on the server would be missing in the next transaction's session. */
    @Override
    public void checkTransactionPooling(Connection connection) throws SQLException {
        PgServerPrepares.refuseNamedStatements(connection);
    }

    @Override
    public void checkServer(Connection connection, InboxSpec table, ClaimForm form) throws SQLException {
        if (form != ClaimForm.ADVISORY && table.group().isEmpty()) {
            return;
        }
        int version;
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SHOW server_version_num")) {
            rs.next();
            version = Integer.parseInt(rs.getString(1).trim());
        }
        checkVersion(version, table.table(), form);
    }

    /** Throws {@code SERVER_TOO_OLD} below PostgreSQL 11, which added {@code hashtextextended}. */
    static void checkVersion(int serverVersionNum, String table, ClaimForm form) {
        if (serverVersionNum < 110000) {
            throw new InboxException(InboxException.Kind.SERVER_TOO_OLD, "table " + table + ": "
                    + (form == ClaimForm.ADVISORY ? "the advisory lock form" : "FIFO groups")
                    + " need PostgreSQL 11 or later (hashtextextended), and the server is version " + serverVersionNum
                    + ": upgrade the server or use another form");
        }
    }

    @Override
    protected String headersAsText() {
        return "::text";
    }

    @Override
    protected String jsonParameter(TableShape t, Column column, String parameter) {
        String type = t.typeName(column);
        return type.equals("json") || type.equals("jsonb") ? "CAST(" + parameter + " AS " + type + ")" : parameter;
    }

    /**
     * A batch as one multi-row insert, whose ids pgjdbc returns (it adds the {@code RETURNING}):
     * its JDBC batch with generated keys asked for ignores the statement's query timeout.
     */
    @Override
    public String insertRows(TableShape t, int rows) {
        return multiRowInsert(t, rows);
    }

    /** A conflict on any unique index (the key's, or the id's) inserts nothing and leaves the transaction unharmed. */
    @Override
    public String insertUnique(TableShape t) {
        return insert(t) + " ON CONFLICT DO NOTHING";
    }

    /**
     * The server cancels a statement at the driver's query timeout (57014, query_canceled), or at
     * a {@code lock_timeout} the session sets (55P03).
     */
    @Override
    public boolean timedOut(SQLException e) {
        return "57014".equals(e.getSQLState()) || "55P03".equals(e.getSQLState()) || super.timedOut(e);
    }
}
