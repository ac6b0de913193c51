package dev.inbox.schema;

import dev.inbox.Column;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.engine.InboxBroker;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The DDL of Inbox's tables on one database: a queue table from its description, its dead-letter
 * table, and the tables of paused queues, recurring jobs and subscribers. Each method returns the statements
 * to run in order; nothing here touches a database.
 *
 * <pre>{@code
 * List<String> ddl = InboxSchema.ddl(MakeThumbnail.class, "postgresql");
 *
 * InboxSchema schema = InboxSchema.of(connection).ifNotExists();
 * try (Statement s = connection.createStatement()) {
 *     for (String sql : schema.queue(MakeThumbnail.class)) {
 *         s.execute(sql);
 *     }
 * }
 * }</pre>
 *
 * A queue table gets the payload type that holds any JSON (PostgreSQL {@code BYTEA}, MySQL and
 * MariaDB {@code LONGBLOB}, SQLite {@code BLOB}; text types for a {@code String} payload), an index
 * in the claim's order where the table has a priority column, one on each group's first row where
 * it has a group column, a unique index on its unique-key column, a nullable {@code TEXT} last error
 * column (in its dead-letter table too) where it declares one, and on PostgreSQL the autovacuum
 * settings a churning table needs. Names are
 * quoted as the engine quotes them, so a column named {@code group} works on every database.
 */
public final class InboxSchema {
    /** PostgreSQL storage parameters of a queue table: vacuum after a fixed count of dead rows, without pausing. */
    static final String QUEUE_AUTOVACUUM = "autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,"
            + " autovacuum_vacuum_cost_delay = 0";

    private final SchemaDatabase database;
    private final boolean ifNotExists;
    private final int fillfactor;

    private InboxSchema(SchemaDatabase database, boolean ifNotExists, int fillfactor) {
        this.database = database;
        this.ifNotExists = ifNotExists;
        this.fillfactor = fillfactor;
    }

    /**
     * The DDL for {@code database}: {@code postgresql}, {@code mysql}, {@code mariadb} or {@code sqlite}.
     *
     * @throws InboxException {@code BACKEND} for another name
     */
    public static InboxSchema of(String database) {
        return new InboxSchema(SchemaDatabase.named(database), false, 100);
    }

    /** The DDL for the database {@code connection} reaches, by its product name. */
    public static InboxSchema of(Connection connection) throws SQLException {
        return of(connection.getMetaData().getDatabaseProductName());
    }

    /** The queue table of an {@link dev.inbox.InboxTable} record and its indexes, on {@code database}. */
    public static List<String> ddl(Class<?> tableRecord, String database) {
        return of(database).queue(tableRecord);
    }

    /** The same statements with {@code IF NOT EXISTS}, to run at every start of an application. */
    public InboxSchema ifNotExists() {
        return new InboxSchema(database, true, fillfactor);
    }

    /**
     * The PostgreSQL fillfactor of queue tables (10 to 100, default 100): 70 to 80 keeps claims'
     * updates on their page where a table often holds a large backlog, at the cost of space
     * (docs: keeping queue tables small). Other databases have no such setting and ignore it.
     */
    public InboxSchema fillfactor(int percent) {
        if (percent < 10 || percent > 100) {
            throw new InboxException(InboxException.Kind.DECLARATION,
                    "fillfactor " + percent + " is out of range: PostgreSQL takes 10 to 100");
        }
        return new InboxSchema(database, ifNotExists, percent);
    }

    /** The queue table an {@link dev.inbox.InboxTable} record describes, with its indexes. */
    public List<String> queue(Class<?> tableRecord) {
        return queue(QueueShape.of(tableRecord));
    }

    /** The queue table of a hand-written description (an integer id, a payload of bytes). */
    public List<String> queue(InboxSpec table) {
        return queue(QueueShape.of(table));
    }

    /** The dead-letter table {@code deadLetterTable} of the queue table a record describes. */
    public List<String> deadLetter(Class<?> tableRecord, String deadLetterTable) {
        return deadLetter(QueueShape.of(tableRecord), deadLetterTable);
    }

    /** The dead-letter table {@code deadLetterTable} of a hand-written queue description. */
    public List<String> deadLetter(InboxSpec table, String deadLetterTable) {
        return deadLetter(QueueShape.of(table), deadLetterTable);
    }

    /** The table of paused queues at its default name, {@code inbox_paused}. */
    public List<String> pauseTable() {
        return pauseTable(InboxBroker.DEFAULT_PAUSE_TABLE);
    }

    /** The table of paused queues, shared by every server on the database ({@code broker.pauseTable(name)}). */
    public List<String> pauseTable(String name) {
        return table(name)
                .column("queue", database.key(200) + " PRIMARY KEY")
                .column("paused_at", database.time() + " NOT NULL")
                .statements();
    }

    /** The table of recurring jobs' next due times at its default name, {@code inbox_schedule}. */
    public List<String> scheduleTable() {
        return scheduleTable(InboxBroker.DEFAULT_SCHEDULE_TABLE);
    }

    /** The table of recurring jobs' next due times ({@code broker.scheduleTable(name)}). */
    public List<String> scheduleTable(String name) {
        return table(name)
                .column("name", database.key(200) + " PRIMARY KEY")
                .column("cron", database.key(200) + " NOT NULL")
                .column("next_due", database.time() + " NOT NULL")
                .column("disabled_at", database.time() + " NULL")
                .statements();
    }

    /** The table of the subscriptions that read each queue table, at its default name, {@code inbox_subscribers}. */
    public List<String> subscriberTable() {
        return subscriberTable(InboxBroker.DEFAULT_SUBSCRIBER_TABLE);
    }

    /**
     * The table where each broker declares how it reads each queue table ({@code
     * broker.subscriberTable(name)}), so that a broker describing a table another way than a live
     * one is refused at connect.
     */
    public List<String> subscriberTable(String name) {
        return table(name)
                .column("queue_table", database.key(200) + " NOT NULL")
                .column("subscriber", database.key(200) + " NOT NULL")
                .column("declaration", database.key(1000) + " NOT NULL")
                .column("seen_at", database.time() + " NOT NULL")
                .primaryKey(List.of(TableDdl.Key.ascending("queue_table"), TableDdl.Key.ascending("subscriber")))
                .statements();
    }

    /** Statements as one script, each ended by a semicolon on its line (for a migration file). */
    public static String script(List<String> statements) {
        StringBuilder script = new StringBuilder();
        statements.forEach(s -> script.append(s).append(";\n"));
        return script.toString();
    }

    private List<String> queue(QueueShape shape) {
        InboxSpec spec = shape.spec();
        spec.claimForm(); // a description that cannot work gets its DECLARATION error here, not at open
        Column id = spec.id();
        if (id.isGenerated() && !database.generates(shape.id())) {
            throw new InboxException(InboxException.Kind.DECLARATION, "table " + spec.table() + ": " + database
                    + " does not generate ids of type " + shape.id() + ": declare @Id(generated = false) and set"
                    + " the ids yourself, or use a numeric id");
        }
        TableDdl ddl = table(spec.table())
                .column(id.name(), database.id(shape.id(), id.isGenerated()) + database.primaryKey(shape.id(), id.isGenerated()));
        spec.attempt().ifPresent(c -> ddl.column(c.name(), (database == SchemaDatabase.SQLITE ? "INTEGER" : "SMALLINT")
                + " NOT NULL DEFAULT 1"));
        String time = database.time() + database.nullable();
        spec.lease().ifPresent(c -> ddl.column(c.name(), time));
        spec.advisoryLock().ifPresent(c -> ddl.column(c.name(), database.key(200) + database.nullable()));
        spec.retryAfter().ifPresent(c -> ddl.column(c.name(), time));
        spec.processedAt().ifPresent(c -> ddl.column(c.name(), time));
        spec.publishedAt().ifPresent(c -> ddl.column(c.name(), time));
        spec.headers().ifPresent(c -> ddl.column(c.name(), database.json() + database.nullable()));
        spec.group().ifPresent(c -> ddl.column(c.name(), database.key(200) + database.nullable()));
        spec.priority().ifPresent(c -> ddl.column(c.name(), "INTEGER NOT NULL DEFAULT 0"));
        spec.uniqueKey().ifPresent(c -> ddl.column(c.name(), database.key(200) + database.nullable()));
        spec.lastError().ifPresent(c -> ddl.column(c.name(), database.lastError()));
        Column payload = spec.payload().orElseThrow();
        ddl.column(payload.name(), payloadType(shape) + " NOT NULL");
        claimOrder(spec).ifPresent(order -> ddl.index("claim", false, order));
        groupHeads(spec).ifPresent(heads -> ddl.index("group", false, heads));
        spec.uniqueKey().ifPresent(c -> ddl.index("key", true, List.of(TableDdl.Key.ascending(c.name()))));
        if (database == SchemaDatabase.POSTGRESQL) {
            ddl.storage((fillfactor < 100 ? "fillfactor = " + fillfactor + ", " : "") + QUEUE_AUTOVACUUM);
        }
        return ddl.statements();
    }

    /**
     * The index that reads rows in the claim's order, {@code (priority DESC, id)}, where the table
     * has a priority; without one the primary key is that order. On MySQL and MariaDB it is what
     * keeps a claim to its own rows: a {@code FOR UPDATE} whose order must be sorted locks every
     * ready row it read until its transaction ends, so one open claim leaves the others none.
     * Neither the lease nor the attempt column is indexed: claims update them, and on PostgreSQL an
     * update of no indexed column stays on its page (HOT).
     */
    private static Optional<List<TableDdl.Key>> claimOrder(InboxSpec spec) {
        return spec.priority().map(p -> List.of(TableDdl.Key.descending(p.name()),
                TableDdl.Key.ascending(spec.id().name())));
    }

    /** The index that finds each group's first row, {@code (group, id)}. */
    private static Optional<List<TableDdl.Key>> groupHeads(InboxSpec spec) {
        return spec.group().map(g -> List.of(TableDdl.Key.ascending(g.name()),
                TableDdl.Key.ascending(spec.id().name())));
    }

    private List<String> deadLetter(QueueShape shape, String deadLetterTable) {
        InboxSpec spec = shape.spec();
        TableDdl ddl = table(deadLetterTable)
                .column("id", database.id(shape.id(), false) + " PRIMARY KEY")
                .column("payload", payloadType(shape) + " NOT NULL");
        spec.headers().ifPresent(c -> ddl.column("headers", database.json() + database.nullable()));
        ddl.column("attempt", "INTEGER NOT NULL")
                .column("error", database.text() + " NOT NULL")
                .column("failed_at", database.time() + " NOT NULL");
        // The dead letter keeps the queue's last error under the same name.
        spec.lastError().ifPresent(c -> ddl.column(c.name(), database.lastError()));
        return ddl.statements();
    }

    private String payloadType(QueueShape shape) {
        return shape.textPayload() ? database.text() : database.bytes();
    }

    private TableDdl table(String name) {
        return new TableDdl(database, name, ifNotExists);
    }
}
