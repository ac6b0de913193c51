package dev.inbox.spi;

import dev.inbox.ClaimForm;
import dev.inbox.InboxSpec;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Everything database-specific: which database it serves and what it can do ({@link Capabilities}),
 * how names are quoted and times bound, and the text of every statement, each whole as the engine
 * runs it. Statements are data, built once per table when
 * a subscription opens; they name their parameters ({@code :now}, {@code :id}, see
 * {@link NamedSql}) and the engine binds them.
 *
 * <p>The built-in dialects serve PostgreSQL, MySQL/MariaDB and SQLite. A database they do not
 * serve is served by an implementation of this interface given to the broker
 * ({@code InboxBroker.dialect(..)}) or listed in
 * {@code META-INF/services/dev.inbox.spi.Dialect}.
 */
public interface Dialect {

    /** A short name for messages and logs, such as {@code postgresql}. */
    String name();

    /** True when this dialect serves the database {@code metaData} describes. */
    boolean serves(DatabaseMetaData metaData) throws SQLException;

    /** What the database can do: the claim forms, the longest name, how it commits and wakes. */
    Capabilities capabilities();

    /** Quotes a name already checked as a plain identifier; {@code schema.table} quotes each part. */
    String quote(String identifier);

    /** Statements run on each new connection of a pool the broker builds itself. */
    default List<String> connectionInitSql() {
        return List.of();
    }

    /**
     * Refuses, at connect, a connection whose driver keeps state in the server session between
     * transactions, where the broker is declared to be behind a pooler that hands each
     * transaction whichever session is free ({@link dev.inbox.ConnectionPooler#TRANSACTION}):
     * PostgreSQL's driver preparing statements on the server, for one. By default every connection
     * is refused: a dialect whose statements keep nothing in a session says so by overriding this
     * (the MySQL family sets its claims' isolation for the session, and SQLite has no server).
     *
     * @throws dev.inbox.InboxException {@code DECLARATION} naming the driver setting to change
     */
    default void checkTransactionPooling(Connection connection) throws SQLException {
        throw new dev.inbox.InboxException(dev.inbox.InboxException.Kind.DECLARATION, "the broker is declared to be"
                + " behind a transaction pooler (connectionPooler TRANSACTION), and the " + name() + " dialect keeps"
                + " state in its sessions between transactions: connect without the pooler, or through session pooling"
                + " (connectionPooler SESSION)");
    }

    /**
     * Checks the server where the dialect has a version floor for {@code form}.
     *
     * @throws dev.inbox.InboxException {@code SERVER_TOO_OLD} or {@code DIALECT} naming the version found and needed
     */
    default void checkServer(Connection connection, InboxSpec table, ClaimForm form) throws SQLException {}

    /**
     * True when the database may give a new row of {@code table} the generated id of a deleted one
     * (SQLite's {@code INTEGER PRIMARY KEY} without {@code AUTOINCREMENT}): such a table cannot send
     * rows to a dead-letter table keyed by id, where an id may already be.
     */
    default boolean reusesIds(Connection connection, TableShape table) throws SQLException {
        return false;
    }

    /** Prepares {@code sql} on the server, so that a table or column the database lacks fails now. */
    default void prepare(Connection connection, String sql) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.getParameterMetaData();
        }
    }

    /**
     * Opens the transaction of a transactional delivery on {@code connection}: autocommit off, at
     * the table's isolation level (servers) or mode (SQLite).
     */
    default void begin(Connection connection, InboxSpec table) throws SQLException {
        if (table.isolation() != dev.inbox.Isolation.DEFAULT) {
            connection.setTransactionIsolation(table.isolation().jdbcLevel());
        }
        connection.setAutoCommit(false);
    }

    /**
     * The statement that starts a transaction while the connection stays in autocommit, or null
     * (the default) where the engine switches autocommit off and back on around its transactions
     * (a claim, a batch of acks, a transactional delivery on the broker's own connections, but for
     * a database whose write transactions lock it whole ({@link Capabilities#writeLocksDatabase}),
     * whose deliveries begin in the table's mode through {@link #begin}). MySQL and MariaDB: {@code START TRANSACTION}, one round trip where
     * switching autocommit off and on takes two; SQLite: {@code BEGIN IMMEDIATE}. The engine ends
     * such a transaction with a {@code COMMIT} or {@code ROLLBACK} statement.
     */
    default String startTransaction() {
        return null;
    }

    /**
     * The JDBC isolation level a transactional delivery of {@code table} runs at, or -1 for the
     * connection's own: the table's declared level by default. A server's JTA transaction runs at
     * its data source's level, which must then be this one.
     */
    default int deliveryIsolation(InboxSpec table) {
        return table.isolation().jdbcLevel();
    }

    /**
     * True when {@link #begin} may change the connection's isolation level, so the caller reads
     * the level first for {@link #end} to restore (else {@code end} is given -1); reading it can
     * cost a round trip (PostgreSQL). A dialect whose {@code begin} sets a level of its own says so here.
     */
    default boolean beginChangesIsolation(InboxSpec table) {
        return table.isolation() != dev.inbox.Isolation.DEFAULT;
    }

    /** Ends what {@link #begin} set, before the connection goes back to its pool; the transaction has ended. */
    default void end(Connection connection, InboxSpec table, int isolationBefore) throws SQLException {
        connection.setAutoCommit(true);
        if (table.isolation() != dev.inbox.Isolation.DEFAULT) {
            connection.setTransactionIsolation(isolationBefore);
        }
    }

    /**
     * Where {@link Capabilities#writeLocksDatabase}: a statement that changes nothing in {@code t} but makes the
     * transaction it runs in take the database's write lock at once. A delivery transaction that a
     * server began without the lock (a JTA data source runs SQLite in DEFERRED mode) runs it first,
     * so that it holds the lock from its start as the table's mode asks; null where not needed.
     */
    default String takeWriteLock(TableShape t) {
        return null;
    }

    /**
     * The channel notifications of {@code table} come on, where the database has notifications
     * ({@link Capabilities#notifications}); null where it has none.
     */
    default String listenChannel(String table) {
        return null;
    }

    /** The statement a publisher runs after its insert to notify {@code :channel}; null where there is none. */
    default String notifyStatement() {
        return null;
    }

    /** The statement that starts listening on {@code channel} (a plain identifier), where {@link #listenChannel} gives one. */
    default String listen(String channel) {
        throw new UnsupportedOperationException(name() + " has no notifications");
    }

    /** The statement that stops every listening of a session, where {@link #listenChannel} gives channels. */
    default String unlistenAll() {
        throw new UnsupportedOperationException(name() + " has no notifications");
    }

    /**
     * Waits up to {@code timeout} for notifications on a connection that listens, and returns the
     * channel of each that came (empty when none did).
     */
    default List<String> awaitNotifications(Connection listening, Duration timeout) throws SQLException {
        throw new UnsupportedOperationException(name() + " has no notifications");
    }

    /**
     * A statement that reads no row but names {@code columns} of {@code table} (both quoted), so
     * that preparing it checks they exist: {@code SELECT a, b FROM t WHERE 1 = 0}.
     */
    default String columnProbe(String table, List<String> columns) {
        return "SELECT " + String.join(", ", columns) + " FROM " + table + " WHERE 1 = 0";
    }

    /**
     * A queue's depth in one row: its unfinished rows, those of them due now (claimable, but for
     * row locks no statement sees), the earliest publish time among those ({@link #readTime}; NULL
     * without a published_at column), and, on the database's clock, the database's now. Binds {@code :now}
     * (the host's clock). By default every unfinished row counts as due, with no time.
     */
    default String depth(TableShape table) {
        return "SELECT COUNT(*), COUNT(*), NULL FROM " + table.table() + table.name(table.spec().processedAt())
                .map(p -> " WHERE " + p + " IS NULL").orElse("");
    }

    /** Reads a time column (as {@link #bindTime} wrote it) from {@code rs}; null for SQL NULL. */
    default Instant readTime(ResultSet rs, int column) throws SQLException {
        java.time.OffsetDateTime time = rs.getObject(column, java.time.OffsetDateTime.class);
        return time == null ? null : time.toInstant();
    }

    /**
     * A query of the database's clock: one row, one column, the time now in milliseconds since
     * 1970-01-01 UTC. The lease form compares the host's clock with it as it opens and while the
     * host's clock has stepped; null (the default) where the database's clock cannot be read.
     */
    default String clockQuery() {
        return null;
    }

    /**
     * An expression of one row of {@code table} telling where its job stands, for an operator's list:
     * 0 due now ({@link dev.inbox.JobState#DUE}), 1 not due yet ({@code SCHEDULED}), 2 held by a
     * lease ({@code IN_WORK}, the lease form only). Binds {@code :now} (the host's clock) where it
     * needs a time. By default every row reads as due.
     */
    default String jobState(TableShape table) {
        return "0";
    }

    /**
     * Makes row {@code :id} of {@code table} due now where it waits for its {@code retry_after} time
     * and no lease holds it (binds {@code :now}); null (the default) where the table keeps no due time
     * apart from its lease.
     */
    default String runNow(TableShape table) {
        return null;
    }

    /**
     * True where {@code column}'s value (quoted) holds {@code :text}: bound as a string, or as bytes
     * where {@code binary}. Standard SQL by default.
     */
    default String contains(String column, boolean binary) {
        return "POSITION(:text IN " + column + ") > 0";
    }

    /** Counts the rows of {@code table} (a plain name, quoted here), such as a dead-letter table. */
    default String countRows(String table) {
        return "SELECT COUNT(*) FROM " + quote(table);
    }

    /**
     * The head of {@code column}'s value (quoted): its first {@code :head} characters, or bytes where
     * {@code binary}, so that a list of dead letters reads a preview, not every payload whole.
     * Standard SQL by default.
     */
    default String head(String column, boolean binary) {
        return "SUBSTRING(" + column + " FROM 1 FOR :head)";
    }

    /**
     * The length in bytes of {@code column}'s value (quoted), a text column's in UTF-8, for a list
     * that reads only its {@link #head}. Standard SQL by default.
     */
    default String octetLength(String column, boolean binary) {
        return "OCTET_LENGTH(" + column + ")";
    }

    /**
     * What keeps a column of {@code type} from holding what the engine keeps in a column of
     * {@code role}: null where nothing does, else the problem and the type to use, as words that
     * follow the column's name ("is DATE, which keeps no time of day: use TIMESTAMPTZ"). Asked at
     * open for every such column of a queue table; a user's dialect that does not answer accepts all.
     */
    default String columnProblem(ColumnRole role, ColumnType type) {
        return null;
    }

    /**
     * The index {@code table}'s claims in {@code form} must read it through, found on {@code
     * connection} when a subscription opens; empty where the database needs none, as where a locking
     * claim locks only the rows it returns. The statements then name it ({@link TableShape#claimIndex}).
     *
     * @throws dev.inbox.InboxException {@code SCHEMA} where the claims need one and the table has none,
     *                                  naming the index to create
     */
    default Optional<String> claimIndex(Connection connection, InboxSpec table, ClaimForm form) throws SQLException {
        return Optional.empty();
    }

    /**
     * True where a column keeps no more than its declared length (a {@code VARCHAR(255)}, a
     * {@code BLOB}); SQLite keeps a value of any length in any column, whatever its type says.
     */
    default boolean keepsDeclaredLengths() {
        return true;
    }

    /** {@code time} as the database keeps it: the settlement compares the stored value exactly. */
    Instant stored(Instant time);

    /**
     * The first stored time at least {@code wait} after {@code now}: a lease's expiry (the
     * delivery's ownership token) or when a delayed row becomes due. A database that keeps coarser
     * times than the host rounds up here, never down, so a lease is never shorter than asked.
     */
    default Instant deadline(Instant now, Duration wait) {
        return stored(now.plus(wait));
    }

    /** Binds a time (already {@link #stored}); null binds SQL NULL. */
    void bindTime(PreparedStatement statement, int index, Instant time) throws SQLException;

    /** The insert of one job, with the parameters of the columns the publisher writes. */
    String insert(TableShape table);

    /**
     * The insert of {@code rows} jobs in one statement (a multi-row {@code VALUES} list), each row
     * with the parameters {@link #insert} names, in row order; null where the database takes a batch
     * of single inserts instead. One statement commits alone in autocommit, so a batch published in
     * a transaction of its own needs no transaction around it (and none of its round trips). The
     * publisher prepares it for the generated ids and reads them from the statement's result set
     * where it returns one (a {@code RETURNING} clause), else from the driver's generated keys: one
     * id per row, in row order.
     */
    default String insertRows(TableShape table, int rows) {
        return null;
    }

    /**
     * The insert of one job that carries a unique key ({@code :key}): where a row of the table
     * already holds the key (or the id), it inserts nothing (an update count of 0) or fails with an
     * error {@link #duplicateKey} recognizes, and in either case leaves the caller's transaction
     * able to go on. By default the plain {@link #insert}, for a database whose failed statement
     * does not abort its transaction.
     */
    default String insertUnique(TableShape table) {
        return insert(table);
    }

    /** True when {@code e} is a unique index refusing the row {@link #insertUnique} tried to insert. */
    default boolean duplicateKey(SQLException e) {
        return false;
    }

    /**
     * True when {@code e} ends a statement that ran out of its JDBC query timeout (a publish's
     * insert waiting for a lock), as the driver reports it. By default the standard {@link
     * SQLTimeoutException}.
     */
    default boolean timedOut(SQLException e) {
        return e instanceof SQLTimeoutException;
    }

    /**
     * True when the database rolled back {@code e}'s transaction because a concurrent one won a
     * race for the same rows: a deadlock victim or a serialization failure (SQLState {@code 40001}
     * by default), or on a certifying cluster (MariaDB Galera) a transaction that lost certification
     * to another node's. Nothing of it took effect, so the engine runs the same work again at once,
     * and counts it ({@link BrokerListener#raceLost}) rather than reporting it as a failure.
     */
    default boolean lostRace(SQLException e) {
        return "40001".equals(e.getSQLState());
    }

    /**
     * Copies row {@code :id} into {@code deadLetterTable}, whose columns are {@code id},
     * {@code payload}, {@code headers} (where the queue table has headers), {@code attempt},
     * {@code error}, {@code failed_at} and, where the queue table has a last error column, one of
     * that name ({@code :lastError}, else the row's own), binding {@code :attempt}, {@code :error} and
     * {@code :failed}. A {@code leased} copy takes the row only while it holds {@code :token}. A
     * table's retry statements likewise write {@code :lastError} into its last error column, keeping
     * the column's value where the parameter is NULL.
     */
    String deadLetter(TableShape table, String deadLetterTable, boolean leased);

    /**
     * The statements that cancel a job of {@code table} unless it is in work, by the table's claim
     * form; a dialect that has none cannot cancel.
     */
    default CancelStatements cancel(TableShape table) {
        throw new UnsupportedOperationException(name() + " cannot cancel jobs");
    }

    /**
     * Binds the {@code :rows} of a statement for many rows (the {@code stampRows}, {@code ackRows},
     * {@code takeRows} and {@code countRows} of the forms' statements), and the {@code :ids} of
     * their {@code ackAll} with no tokens: each row's id, and its lease token where {@code tokens}
     * is not null (the same length, each {@link #stored}).
     */
    default void bindRows(PreparedStatement statement, int index, Object[] ids, Instant[] tokens)
            throws SQLException {
        throw new UnsupportedOperationException(name() + " writes no statement for a list of rows");
    }

    /** The statements of the lease form. */
    LeaseStatements lease(TableShape table);

    /** The statements of the advisory lock form, where {@link Capabilities#forms()} has it. */
    default AdvisoryStatements advisory(TableShape table) {
        throw new UnsupportedOperationException(name() + " does not serve the advisory lock form");
    }

    /** The statements of the row lock form, where {@link Capabilities#forms()} has it. */
    default RowLockStatements rowLock(TableShape table) {
        throw new UnsupportedOperationException(name() + " does not serve the row lock form");
    }
}
