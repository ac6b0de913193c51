package dev.inbox.dialect;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Isolation;
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
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MySQL 8.0.1+ and MariaDB 10.6+ (the versions that added {@code SKIP LOCKED}). A lease claim
 * selects its rows, stamps each one and commits, at READ COMMITTED. Expiries are whole seconds,
 * so a {@code DATETIME} without fractions holds the token exactly; times are UTC.
 */
public final class MySqlDialect extends StandardDialect {
    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)");

    public MySqlDialect() {
        super('`');
    }

    @Override
    public String name() {
        return "mysql";
    }

    @Override
    public boolean serves(DatabaseMetaData metaData) throws SQLException {
        String product = metaData.getDatabaseProductName();
        return product.equalsIgnoreCase("MySQL") || product.equalsIgnoreCase("MariaDB");
    }

    /** Every form; claims run at READ COMMITTED, where a SKIP LOCKED claim locks no gaps. */
    private static final Capabilities CAPABILITIES = Capabilities.of(EnumSet.allOf(ClaimForm.class), 64)
            .poolAt(Connection.TRANSACTION_READ_COMMITTED);

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public void checkServer(Connection connection, InboxSpec table, ClaimForm form) throws SQLException {
        String version;
        boolean binaryLog;
        String binlogFormat;
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT VERSION(), @@log_bin, @@binlog_format")) {
            rs.next();
            version = rs.getString(1);
            binaryLog = rs.getBoolean(2);
            binlogFormat = rs.getString(3);
        }
        checkVersion(version, table.table());
        checkBinaryLog(binaryLog, binlogFormat, table.table());
        if (form != ClaimForm.LEASE && galera(connection)) {
            throw onGalera(table.table(), form);
        }
        if (form == ClaimForm.ROW_LOCK && table.group().isPresent() && table.isolation() == Isolation.SERIALIZABLE) {
            throw new InboxException(InboxException.Kind.DIALECT, "table " + table.table() + " is a row lock table with"
                    + " FIFO groups at SERIALIZABLE: InnoDB then locks every row a claim reads, and a claim would wait"
                    + " for the group's row in work; declare READ_COMMITTED or use a lease table");
        }
    }

    /**
     * Throws {@code SERVER_TOO_OLD} for MariaDB below 10.6 and MySQL below 8.0.1, and
     * {@code DIALECT} for a version it cannot read.
     */
    static void checkVersion(String version, String table) {
        Matcher m = version == null ? null : VERSION.matcher(version);
        if (m == null || !m.find()) {
            throw new InboxException(InboxException.Kind.DIALECT, "table " + table + ": the server's version '"
                    + version + "' cannot be read as major.minor.patch, so Inbox cannot tell it has SKIP LOCKED"
                    + " (MySQL 8.0.1 or MariaDB 10.6 and later): connect to a MySQL or MariaDB server, or give the"
                    + " broker a dialect of your own for this one");
        }
        boolean maria = version.toLowerCase(java.util.Locale.ROOT).contains("mariadb");
        int[] floor = maria ? new int[] {10, 6, 0} : new int[] {8, 0, 1};
        int[] found = {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))};
        for (int i = 0; i < 3; i++) {
            if (found[i] != floor[i]) {
                if (found[i] < floor[i]) {
                    throw new InboxException(InboxException.Kind.SERVER_TOO_OLD, "table " + table + ": the server is "
                            + (maria ? "MariaDB " : "MySQL ") + version + ", and Inbox needs "
                            + (maria ? "MariaDB 10.6" : "MySQL 8.0.1") + " or later (SKIP LOCKED): upgrade the server");
                }
                return;
            }
        }
    }

    /** True when the server is a node of a MariaDB Galera Cluster: replication by wsrep is on. */
    private static boolean galera(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SHOW VARIABLES LIKE 'wsrep_on'")) {
            return rs.next() && "ON".equalsIgnoreCase(rs.getString(2));
        }
    }

    /**
     * {@code DIALECT} for a row lock or advisory table on Galera: a node's row locks ({@code FOR
     * UPDATE SKIP LOCKED}) and {@code GET_LOCK} hold on that node alone, so brokers on two nodes
     * would work one job at once. The lease lives in the row, which every node certifies.
     */
    static InboxException onGalera(String table, ClaimForm form) {
        String locks = form == ClaimForm.ROW_LOCK ? "row locks (FOR UPDATE SKIP LOCKED)" : "advisory locks (GET_LOCK)";
        return new InboxException(InboxException.Kind.DIALECT, "table " + table + " is a " + form.name()
                .toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + " table on a MariaDB Galera Cluster node"
                + " (wsrep_on), where " + locks + " hold on one node only, so brokers on two nodes could work one"
                + " job at once: use the lease form on Galera (a lease column such as locked_until DATETIME(6),"
                + " declared with @LockedUntil or InboxSpec.lease)");
    }

    /**
     * Throws {@code DIALECT} where the server logs statements (binary log on, {@code binlog_format}
     * STATEMENT): InnoDB then refuses every write at READ COMMITTED, the level claims run at.
     */
    static void checkBinaryLog(boolean binaryLog, String format, String table) {
        if (binaryLog && "STATEMENT".equalsIgnoreCase(format)) {
            throw new InboxException(InboxException.Kind.DIALECT, "table " + table + ": the server writes its binary"
                    + " log with binlog_format = STATEMENT, and InnoDB then refuses writes at READ COMMITTED, where"
                    + " Inbox claims: set the server variable binlog_format to ROW (or MIXED)");
        }
    }

    /** Without a declared level a delivery runs at READ COMMITTED, like the claims. */
    @Override
    public int deliveryIsolation(InboxSpec table) {
        return table.isolation() == Isolation.DEFAULT ? Connection.TRANSACTION_READ_COMMITTED
                : table.isolation().jdbcLevel();
    }

    @Override
    public void begin(Connection connection, InboxSpec table) throws SQLException {
        int level = deliveryIsolation(table);
        // The driver knows the session's level without asking the server; setting it costs a round trip.
        if (connection.getTransactionIsolation() != level) {
            connection.setTransactionIsolation(level);
        }
        connection.setAutoCommit(false);
    }

    @Override
    public String startTransaction() {
        return "START TRANSACTION";
    }

    @Override
    public boolean beginChangesIsolation(InboxSpec table) {
        return true; // to READ COMMITTED, where no level is declared
    }

    @Override
    public void end(Connection connection, InboxSpec table, int isolationBefore) throws SQLException {
        connection.setAutoCommit(true);
        if (connection.getTransactionIsolation() != isolationBefore) {
            connection.setTransactionIsolation(isolationBefore);
        }
    }

    /**
     * Times in DATETIME, which holds every due time there is and no time zone (the engine keeps
     * whole seconds, so any fractional digits do); TIMESTAMP ends in 2038 and follows the session's
     * zone.
     */
    @Override
    public String columnProblem(ColumnRole role, ColumnType type) {
        String name = type.name().toUpperCase(java.util.Locale.ROOT);
        if (role == ColumnRole.TEXT) {
            if (name.equals("TINYTEXT")) {
                // MariaDB's driver reports its 255 bytes as characters, which four-byte characters overrun.
                return "is TINYTEXT, 255 bytes, too few for an exception's class, message and frames: use TEXT";
            }
            return name.contains("CHAR") || name.contains("TEXT") ? null : "is " + name + ", not text: use TEXT";
        }
        if (role == ColumnRole.COUNTER) {
            return name.contains("INT") ? null : "is " + name + ", not a whole number: use INT";
        }
        if (name.equals("TIMESTAMP")) {
            return "is TIMESTAMP, which ends on 2038-01-19 and is read in each session's time zone: use DATETIME(6)";
        }
        return name.equals("DATETIME") ? null
                : "is " + name + ", which cannot hold a time to the second: use DATETIME(6)";
    }

    @Override
    public Instant stored(Instant time) {
        return time.truncatedTo(ChronoUnit.SECONDS);
    }

    @Override
    public Instant deadline(Instant now, java.time.Duration wait) {
        Instant expiry = now.plus(wait);
        Instant whole = expiry.truncatedTo(ChronoUnit.SECONDS);
        return whole.equals(expiry) ? whole : whole.plusSeconds(1);
    }

    /** The server's UTC clock, whatever the session's time zone. */
    @Override
    public String clockQuery() {
        return "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000";
    }

    @Override
    public Instant readTime(ResultSet rs, int column) throws SQLException {
        LocalDateTime time = rs.getObject(column, LocalDateTime.class);
        return time == null ? null : time.toInstant(ZoneOffset.UTC);
    }

    @Override
    public void bindTime(PreparedStatement statement, int index, Instant time) throws SQLException {
        if (time == null) {
            statement.setNull(index, Types.TIMESTAMP);
        } else {
            statement.setObject(index, LocalDateTime.ofInstant(time, ZoneOffset.UTC));
        }
    }

    @Override
    public void prepare(Connection connection, String sql) throws SQLException {
        // The driver prepares on the client; PREPARE makes the server resolve every table and column.
        try (Statement s = connection.createStatement()) {
            s.execute("PREPARE inbox_check FROM " + literal(sql));
            s.execute("DEALLOCATE PREPARE inbox_check");
        }
    }

    private static String literal(String sql) {
        return "'" + sql.replace("\\", "\\\\").replace("'", "''") + "'";
    }

    @Override
    protected AdvisoryStatements advisoryStatements(TableShape t) {
        // GET_LOCK names are at most 64 characters: the SHA-1 of the key has 40.
        return advisoryWithLocks(t, this::tryAdvisoryLock, advisoryUnlock(),
                "SELECT RELEASE_ALL_LOCKS()");
    }

    @Override
    protected String advisoryKeyText(String column) {
        return "CAST(" + column + " AS CHAR)";
    }

    @Override
    protected String tryAdvisoryLock(String key) {
        return "GET_LOCK(SHA1(CONCAT(:prefix, " + key + ")), 0) = 1";
    }

    @Override
    protected String advisoryUnlock() {
        return "SELECT RELEASE_LOCK(SHA1(:key))";
    }

    /** Where the table has a priority column: the index its locking claims read through ({@link MySqlClaimIndex}). */
    @Override
    public Optional<String> claimIndex(Connection connection, InboxSpec table, ClaimForm form) throws SQLException {
        return MySqlClaimIndex.find(connection, table, form);
    }

    /** The table a locking claim reads, through its claim index where it has one. */
    private String claimed(TableShape t) {
        return t.table() + t.claimIndex().map(index -> " FORCE INDEX (" + quote(index) + ")").orElse("");
    }

    @Override
    protected RowLockStatements rowLockStatements(TableShape t) {
        String select = "SELECT " + claimResult(t, "", false) + " FROM " + claimed(t) + " WHERE " + due(t)
                + " ORDER BY " + claimOrder(t) + " LIMIT :limit FOR UPDATE SKIP LOCKED";
        String stamp = t.name(t.spec().attempt())
                .map(a -> "UPDATE " + t.table() + " SET " + a + " = " + nextAttempt(t) + " WHERE " + t.id() + " = :id")
                .orElse(null);
        return rowLockSettlements(t, LeaseStatements.ClaimStyle.SELECT_THEN_STAMP, select, stamp);
    }

    /** The types a list of ids is read in ({@link #forRows}), by the type the id column has. */
    private static final Map<String, String> ROW_ID_TYPES = Map.ofEntries(Map.entry("bigint", "BIGINT"),
            Map.entry("bigint unsigned", "BIGINT UNSIGNED"), Map.entry("int", "BIGINT"), Map.entry("integer", "BIGINT"),
            Map.entry("int unsigned", "BIGINT"), Map.entry("integer unsigned", "BIGINT"),
            Map.entry("mediumint", "BIGINT"), Map.entry("smallint", "BIGINT"), Map.entry("tinyint", "BIGINT"),
            Map.entry("varchar", "VARCHAR(255)"), Map.entry("char", "VARCHAR(255)"));
    private static final DateTimeFormatter ROW_TOKEN = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");

    /**
     * This dialect's per-row statements ({@code UPDATE <table> SET ... WHERE <id> = :id},
     * {@code DELETE FROM <table> WHERE <id> = :id}, with {@code AND <lease> = :token} where a lease
     * guards them, and the advisory take {@code SELECT ... FROM <table> WHERE <id> = :id AND ...})
     * as one statement for the rows of {@code :rows}, a JSON array that {@code JSON_TABLE} (MySQL
     * 8.0.4, MariaDB 10.6) reads as a table joined to the queue table first ({@code STRAIGHT_JOIN}):
     * each row is found by its primary key, the one lock a statement of one row would take. (A list
     * of ids in {@code IN (...)} the optimizer may answer with a scan of a small table, which at
     * REPEATABLE READ locks every row it reads: two sessions acking different rows deadlocked.)
     * Null for any other statement, and where the id column has a type the list is not read in.
     */
    @Override
    protected String forRows(TableShape t, String perRow) {
        String idType = ROW_ID_TYPES.get(t.typeName(t.spec().id()));
        if (idType == null) {
            return null;
        }
        String byId = " WHERE " + t.id() + " = :id";
        String select = " FROM " + t.table() + byId + " AND ";
        if (perRow.startsWith("SELECT ") && perRow.contains(select)) {
            int from = perRow.indexOf(select);
            return perRow.substring(0, from) + " FROM " + rowsJoined(t, idType, false) + " WHERE "
                    + perRow.substring(from + select.length());
        }
        boolean leased = t.spec().lease().isPresent() && perRow.endsWith(owned(t));
        String where = leased ? owned(t) : byId;
        if (!perRow.endsWith(where)) {
            return null;
        }
        String head = perRow.substring(0, perRow.length() - where.length());
        String update = "UPDATE " + t.table() + " SET ";
        if (head.startsWith(update)) {
            return "UPDATE " + rowsJoined(t, idType, leased) + " SET " + head.substring(update.length());
        }
        if (head.equals("DELETE FROM " + t.table())) {
            return "DELETE " + t.table() + " FROM " + rowsJoined(t, idType, leased);
        }
        return null;
    }

    /** The rows of {@code :rows} joined to the table: by id, and by token where {@code leased}. */
    private String rowsJoined(TableShape t, String idType, boolean leased) {
        return "JSON_TABLE(:rows, '$[*]' COLUMNS (inbox_row_id " + idType + " PATH '$[0]'"
                + (leased ? ", inbox_row_token DATETIME(6) PATH '$[1]'" : "") + ")) AS inbox_rows STRAIGHT_JOIN "
                + t.table() + " ON " + t.table() + "." + t.id() + " = inbox_rows.inbox_row_id"
                + (leased ? " AND " + t.table() + "." + t.name(t.spec().lease().orElseThrow())
                        + " = inbox_rows.inbox_row_token" : "");
    }

    /** The rows as a JSON array of arrays: each id as text, and its token as a DATETIME's text in UTC. */
    @Override
    public void bindRows(PreparedStatement statement, int index, Object[] ids, Instant[] tokens)
            throws SQLException {
        JsonStringEncoder json = JsonStringEncoder.getInstance();
        StringBuilder rows = new StringBuilder(ids.length * (tokens == null ? 16 : 48)).append('[');
        for (int i = 0; i < ids.length; i++) {
            rows.append(i == 0 ? "[\"" : ",[\"");
            json.quoteAsString(String.valueOf(ids[i]), rows);
            rows.append('"');
            if (tokens != null) {
                rows.append(",\"").append(ROW_TOKEN.format(LocalDateTime.ofInstant(tokens[i], ZoneOffset.UTC)))
                        .append('"');
            }
            rows.append(']');
        }
        statement.setString(index, rows.append(']').toString());
    }

    @Override
    protected LeaseStatements leaseClaim(TableShape t, String extend, String ack, String retry, String drop) {
        String select = "SELECT " + claimResult(t, "", false) + " FROM " + claimed(t) + " WHERE " + leaseDue(t)
                + " ORDER BY " + claimOrder(t) + " LIMIT :limit FOR UPDATE SKIP LOCKED";
        String stamp = "UPDATE " + t.table() + " SET " + leaseStamp(t) + " WHERE " + t.id() + " = :id";
        return new LeaseStatements(LeaseStatements.ClaimStyle.SELECT_THEN_STAMP, select, stamp, extend, ack, retry,
                drop);
    }

    /**
     * A duplicate key (ER_DUP_ENTRY, ER_DUP_ENTRY_WITH_KEY_NAME): InnoDB rolls back the statement
     * alone, so the plain insert serves and the caller's transaction goes on. (INSERT IGNORE would
     * also turn a truncated value into a warning, and ON DUPLICATE KEY UPDATE reports a found row
     * like an inserted one under the drivers' found-rows default.)
     */
    @Override
    public boolean duplicateKey(SQLException e) {
        return e.getErrorCode() == 1062 || e.getErrorCode() == 1586;
    }

    /**
     * MariaDB's driver runs a statement with a query timeout under {@code max_statement_time}, whose
     * end (1969) reaches a bulk batch as a plain batch failure; MySQL's {@code max_execution_time}
     * is 3024; Connector/J's own timer throws {@link java.sql.SQLTimeoutException}.
     */
    @Override
    public boolean timedOut(SQLException e) {
        return e.getErrorCode() == 1969 || e.getErrorCode() == 3024 || super.timedOut(e);
    }

    /**
     * A deadlock victim (ER_LOCK_DEADLOCK, 1213), which is also how a Galera node reports a
     * transaction that lost certification to another node's ("WSREP detected deadlock/conflict"),
     * whether at its commit or aborted by the other's write set as it applied.
     */
    @Override
    public boolean lostRace(SQLException e) {
        return e.getErrorCode() == 1213 || super.lostRace(e);
    }

    /**
     * A batch as one multi-row insert: the drivers send a batch of inserts as many statements (or a
     * bulk command), and in autocommit those would commit one by one. MariaDB returns the rows' ids
     * ({@code RETURNING} in a comment only MariaDB runs), where its driver's generated keys hold the
     * first row's alone; on MySQL Connector/J counts them on from the first.
     */
    @Override
    public String insertRows(TableShape t, int rows) {
        return multiRowInsert(t, rows) + " /*M! RETURNING " + t.id() + " */";
    }
}
