package dev.inbox.internal.broker;

import dev.inbox.Column;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.QueueClock;
import dev.inbox.internal.form.DeadLetters;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.ColumnType;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A table as one broker uses it: its shape read from the database once, and its insert, checked
 * on the server. Publishers and the subscription share it.
 */
final class OpenedTable {
    private static final Set<String> BINARY = Set.of("bytea", "blob", "longblob", "mediumblob", "tinyblob",
            "varbinary", "binary", "binary varying", "bytes");

    private final TableShape shape;
    private final Sql insert;
    private final Sql insertUnique;
    private final boolean binaryPayload;
    private final long payloadCapacity;
    /** The queue table's column types by name, as the driver reported them at open. */
    private final Map<String, ColumnType> columnTypes;
    private final Sql notify;
    /** Multi-row inserts by row count, made as publishers need them. */
    private final Map<Integer, Sql> rowInserts = new java.util.concurrent.ConcurrentHashMap<>();
    /** The id of the row holding a unique key, for a duplicate's answer; null without a key column. */
    private final Sql keyHolder;
    /** Whether the dialect writes multi-row inserts ({@link Dialect#insertRows}). */
    private final boolean multiRowInserts;
    /** The characters a last error may have in the table's column; 0 without one. */
    private final int lastErrorLength;

    private OpenedTable(TableShape shape, Sql insert, Sql insertUnique, boolean binaryPayload, long payloadCapacity,
            Map<String, ColumnType> columnTypes, Sql notify, Sql keyHolder, boolean multiRowInserts,
            int lastErrorLength) {
        this.shape = shape;
        this.keyHolder = keyHolder;
        this.multiRowInserts = multiRowInserts;
        this.lastErrorLength = lastErrorLength;
        this.columnTypes = Map.copyOf(columnTypes);
        this.insert = insert;
        this.insertUnique = insertUnique;
        this.binaryPayload = binaryPayload;
        this.payloadCapacity = payloadCapacity;
        this.notify = notify;
    }

    /**
     * Reads the table's columns from the database and prepares its insert.
     *
     * @throws InboxException {@code DECLARATION} for a name the dialect cannot take,
     *                        {@code SCHEMA} for a table or column the database lacks
     */
    static OpenedTable open(Connection connection, Dialect dialect, InboxSpec spec) throws SQLException {
        if (spec.clock() == QueueClock.DATABASE && !dialect.capabilities().readsDatabaseClock()) {
            throw new InboxException(InboxException.Kind.DECLARATION, "table " + spec.table() + " is on the database's"
                    + " clock, which Inbox reads on PostgreSQL only (statement_timestamp()), not on " + dialect.name()
                    + ": describe the table on the host's clock (QueueClock.HOST, the default)");
        }
        Map<String, String> quoted = new HashMap<>();
        quoted.put(spec.table(), dialect.quote(spec.table()));
        for (Column c : spec.columns()) {
            quoted.put(c.name(), dialect.quote(c.name()));
        }
        String probe = dialect.columnProbe(quoted.get(spec.table()),
                spec.columns().stream().map(c -> quoted.get(c.name())).toList());
        Map<String, ColumnType> columnTypes;
        try {
            columnTypes = probeTypes(connection, probe, spec.columns().stream().map(Column::name).toList());
        } catch (SQLException e) {
            throw schema(spec, "column check", probe, e);
        }
        ColumnTypes.check(spec, dialect, columnTypes);
        int lastErrorLength = ColumnTypes.lastErrorLength(spec, dialect, columnTypes);
        Column payload = spec.payload().orElseThrow();
        // What the payload column holds where the database sets a limit (a BLOB, a VARCHAR); 0 for none.
        long held = ColumnTypes.capacity(columnTypes.get(payload.name()));
        long capacity = held == Long.MAX_VALUE ? 0 : held;
        Map<String, String> types = new HashMap<>();
        columnTypes.forEach((column, type) -> types.put(column, type.name()));
        TableShape shape = new TableShape(spec, quoted::get, types);
        Sql insert = new Sql("insert", dialect.insert(shape));
        prepare(connection, dialect, spec, insert);
        Sql insertUnique = null;
        Sql keyHolder = null;
        if (spec.uniqueKey().isPresent()) {
            checkUniqueIndex(connection, spec);
            insertUnique = new Sql("unique insert", dialect.insertUnique(shape));
            prepare(connection, dialect, spec, insertUnique);
            keyHolder = new Sql("unique key's holder", "SELECT " + shape.id() + " FROM " + shape.table() + " WHERE "
                    + shape.name(spec.uniqueKey().get()) + " = :key");
        }
        boolean binary = BINARY.contains(shape.typeName(payload)) || shape.typeName(payload).endsWith("blob");
        Sql notify = dialect.notifyStatement() == null ? null : new Sql("notify", dialect.notifyStatement());
        return new OpenedTable(shape, insert, insertUnique, binary, capacity, columnTypes, notify, keyHolder,
                dialect.insertRows(shape, 2) != null, lastErrorLength);
    }

    /**
     * Checks that a unique index covers the unique-key column alone: without one, duplicate keys
     * would be inserted without a word.
     *
     * @throws InboxException {@code SCHEMA} naming the index to create
     */
    private static void checkUniqueIndex(Connection connection, InboxSpec spec) throws SQLException {
        String column = spec.uniqueKey().orElseThrow().name();
        String table = spec.table();
        String schema = null;
        int dot = table.lastIndexOf('.');
        if (dot > 0) {
            schema = table.substring(0, dot);
            table = table.substring(dot + 1);
        }
        DatabaseMetaData meta = connection.getMetaData();
        for (String name : new String[] {table, table.toLowerCase(Locale.ROOT), table.toUpperCase(Locale.ROOT)}) {
            Map<String, List<String>> indexes = new HashMap<>();
            try (ResultSet rs = meta.getIndexInfo(connection.getCatalog(), schema, name, true, false)) {
                while (rs.next()) {
                    String index = rs.getString("INDEX_NAME");
                    String indexed = rs.getString("COLUMN_NAME");
                    if (index != null && indexed != null && !rs.getBoolean("NON_UNIQUE")) {
                        indexes.computeIfAbsent(index, i -> new ArrayList<>()).add(indexed);
                    }
                }
            }
            for (List<String> columns : indexes.values()) {
                if (columns.size() == 1 && columns.get(0).equalsIgnoreCase(column)) {
                    return;
                }
            }
        }
        throw new InboxException(InboxException.Kind.SCHEMA, "table " + spec.table() + " has the unique-key column "
                + column + " but no unique index on it alone, so duplicate keys would be inserted: create one, as in"
                + " CREATE UNIQUE INDEX " + table + "_" + column + " ON " + spec.table() + " (" + column + ")");
    }

    /**
     * The statement that copies a row of this table into {@code deadTable}, after checking that
     * table has the columns it needs.
     *
     * @throws InboxException {@code SCHEMA} naming both tables and the columns
     */
    String deadLetterInsert(Connection connection, Dialect dialect, String deadTable, boolean leased) {
        InboxSpec spec = shape.spec();
        List<String> columns = new ArrayList<>(List.of("id", "payload", "attempt", "error", "failed_at"));
        spec.headers().ifPresent(h -> columns.add("headers"));
        spec.lastError().ifPresent(e -> columns.add(e.name())); // the dead letter keeps it under the same name
        String probe = dialect.columnProbe(dialect.quote(deadTable), columns.stream().map(dialect::quote).toList());
        Map<String, ColumnType> types;
        try {
            types = probeTypes(connection, probe, columns);
        } catch (SQLException e) {
            throw new InboxException(InboxException.Kind.SCHEMA, "dead-letter table " + deadTable + " of table "
                    + spec.table() + " does not have the columns " + columns + " (" + e.getMessage().trim()
                    + "): create it as README shows. Statement: " + probe, e);
        }
        ColumnTypes.checkDeadLastError(spec, deadTable, dialect, types);
        if (dialect.keepsDeclaredLengths()) {
            ColumnTypes.checkDeadLetter(spec, deadTable, columnTypes, types, DeadLetters.MAX_ERROR, lastErrorLength);
        }
        return dialect.deadLetter(shape, deadTable, leased);
    }

    /** The types of {@code columns}, by name, as the driver reports them for {@code probe}, which selects them in order. */
    private static Map<String, ColumnType> probeTypes(Connection connection, String probe, List<String> columns)
            throws SQLException {
        Map<String, ColumnType> types = new HashMap<>();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(probe)) {
            ResultSetMetaData meta = rs.getMetaData();
            for (int i = 0; i < columns.size(); i++) {
                types.put(columns.get(i), new ColumnType(meta.getColumnTypeName(i + 1), meta.getPrecision(i + 1),
                        meta.getScale(i + 1)));
            }
        }
        return types;
    }

    /** Prepares {@code sql} on the server, turning a failure into {@code SCHEMA} naming table and statement. */
    static void prepare(Connection connection, Dialect dialect, InboxSpec spec, Sql sql) {
        try {
            dialect.prepare(connection, sql.jdbc());
        } catch (SQLException e) {
            throw schema(spec, sql.name(), sql.text(), e);
        }
    }

    static InboxException schema(InboxSpec spec, String statement, String sql, SQLException cause) {
        return new InboxException(InboxException.Kind.SCHEMA, "table " + spec.table() + ": the " + statement
                + " statement does not prepare on the database (" + cause.getMessage().trim()
                + "). Create the table with the columns " + spec.columns().stream().map(Column::name).toList()
                + " in the types README lists, or correct the description. Statement: " + sql, cause);
    }

    TableShape shape() {
        return shape;
    }

    InboxSpec spec() {
        return shape.spec();
    }

    Sql insert() {
        return insert;
    }

    /**
     * The insert of all of {@code payloads} in one statement, where the dialect writes one and they
     * are few and small enough for one packet ({@value #MOST_ROWS_IN_ONE_STATEMENT} rows, 1 MiB);
     * else null.
     */
    Sql insertRows(Dialect dialect, List<byte[]> payloads) {
        if (payloads.size() < 2 || payloads.size() > MOST_ROWS_IN_ONE_STATEMENT) {
            return null;
        }
        long bytes = 0;
        for (byte[] payload : payloads) {
            bytes += payload.length;
        }
        if (bytes > MOST_BYTES_IN_ONE_STATEMENT) {
            return null;
        }
        Sql rows = rowInserts.get(payloads.size());
        if (rows == null) {
            String text = dialect.insertRows(shape, payloads.size());
            if (text == null) {
                return null;
            }
            rows = new Sql("insert of " + payloads.size() + " rows", text);
            rowInserts.putIfAbsent(payloads.size(), rows);
        }
        return rows;
    }

    /**
     * The end (exclusive) of the longest run of {@code payloads} from {@code from} that one multi-row
     * insert takes ({@link #insertRows}), at least one row: where a batch is cut.
     */
    int endOfOneStatement(List<byte[]> payloads, int from) {
        int end = from;
        long bytes = 0;
        while (end < payloads.size() && end - from < MOST_ROWS_IN_ONE_STATEMENT
                && (end == from || bytes + payloads.get(end).length <= MOST_BYTES_IN_ONE_STATEMENT)) {
            bytes += payloads.get(end).length;
            end++;
        }
        return end;
    }

    /**
     * Rows per multi-row insert. A longer batch goes as several in one transaction, not as a JDBC
     * batch: with generated keys asked for, MariaDB Connector/J sends a batch statement by statement
     * (no bulk command), pgjdbc's batch outwaits its query timeout, and SQLite's driver returns no
     * keys (docs/bench/RESULTS.md, "Measurements behind the engine's constants").
     */
    static final int MOST_ROWS_IN_ONE_STATEMENT = 256;
    private static final long MOST_BYTES_IN_ONE_STATEMENT = 1 << 20;

    /** The insert of a job with a unique key, which inserts nothing for a duplicate; null without a key column. */
    Sql insertUnique() {
        return insertUnique;
    }

    /** The id of the row that holds {@code :key}; null without a unique-key column. */
    Sql keyHolder() {
        return keyHolder;
    }

    /**
     * Whether the dialect writes multi-row inserts: then a batch goes as those, each returning its
     * rows' ids ({@link #endOfOneStatement}); else as a JDBC batch of single inserts.
     */
    boolean multiRowInserts() {
        return multiRowInserts;
    }

    /** The publisher's notification after its insert, where the database has them; else null. */
    Sql notifyStatement() {
        return notify;
    }

    boolean binaryPayload() {
        return binaryPayload;
    }

    /** The characters a last error may have in the table's column; 0 where the table keeps none. */
    int lastErrorLength() {
        return lastErrorLength;
    }

    /**
     * The most bytes (characters, in a text column) the payload column holds; 0 where the
     * database sets no limit below the largest int.
     */
    long payloadCapacity() {
        return payloadCapacity;
    }
}
