package dev.inbox;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The description of one queue table: its name, the columns the queue uses, and the table's
 * isolation, SQLite mode and clock. Immutable; each method returns a new description.
 *
 * <pre>{@code
 * static final InboxSpec REPORTS = InboxSpec.table("report_jobs", Column.of("id").generated())
 *         .attempt(Column.of("attempt").generated())
 *         .lease(Column.of("locked_until"))
 *         .payload(Column.of("payload"));
 * }</pre>
 *
 * {@link #of(Class)} derives the same description from an {@link InboxTable} record.
 */
public final class InboxSpec {
    private final String table;
    private final Column id;
    private final Column attempt;
    private final Column lease;
    private final Column advisoryLock;
    private final Column payload;
    private final Column retryAfter;
    private final Column processedAt;
    private final Column publishedAt;
    private final Column headers;
    private final Column group;
    private final Column priority;
    private final Column uniqueKey;
    private final Column lastError;
    private final Isolation isolation;
    private final SqliteMode mode;
    private final QueueClock clock;

    private InboxSpec(String table, Column id, Column attempt, Column lease, Column advisoryLock, Column payload,
            Column retryAfter, Column processedAt, Column publishedAt, Column headers, Column group, Column priority,
            Column uniqueKey, Column lastError, Isolation isolation, SqliteMode mode, QueueClock clock) {
        this.table = table;
        this.id = id;
        this.attempt = attempt;
        this.lease = lease;
        this.advisoryLock = advisoryLock;
        this.payload = payload;
        this.retryAfter = retryAfter;
        this.processedAt = processedAt;
        this.publishedAt = publishedAt;
        this.headers = headers;
        this.group = group;
        this.priority = priority;
        this.uniqueKey = uniqueKey;
        this.lastError = lastError;
        this.isolation = isolation;
        this.mode = mode;
        this.clock = clock;
    }

    /** Starts the description of {@code table} whose primary key is {@code id}. */
    public static InboxSpec table(String table, Column id) {
        Identifiers.checkTable(table);
        Objects.requireNonNull(id, "id column");
        return new InboxSpec(table, id, null, null, null, null, null, null, null, null, null, null, null, null,
                Isolation.DEFAULT, SqliteMode.DEFAULT, QueueClock.HOST);
    }

    /** The description an {@link InboxTable} record declares. */
    public static InboxSpec of(Class<?> recordType) {
        InboxTable table = recordType.getAnnotation(InboxTable.class);
        if (table == null || !recordType.isRecord()) {
            throw new InboxException(InboxException.Kind.DECLARATION, recordType.getName()
                    + " is not a table description: declare it as a record annotated with @InboxTable(\"table_name\")");
        }
        RecordComponent[] components = recordType.getRecordComponents();
        Column id = single(recordType, components, Id.class, c -> column(c, c.getAnnotation(Id.class).value(),
                c.getAnnotation(Id.class).generated()));
        if (id == null) {
            throw new InboxException(InboxException.Kind.DECLARATION, recordType.getName()
                    + " (table " + table.value() + ") has no @Id component: mark the primary key column with @Id");
        }
        InboxSpec spec = table(table.value(), id)
                .isolation(table.isolation()).mode(table.mode()).clock(table.clock());
        spec = spec.attempt(single(recordType, components, Attempt.class, c -> column(c,
                c.getAnnotation(Attempt.class).value(), c.getAnnotation(Attempt.class).generated())));
        spec = spec.lease(plain(recordType, components, LockedUntil.class, LockedUntil::value));
        spec = spec.advisoryLock(plain(recordType, components, AdvisoryLock.class, AdvisoryLock::value));
        spec = spec.payload(plain(recordType, components, Payload.class, Payload::value));
        spec = spec.retryAfter(plain(recordType, components, RetryAfter.class, RetryAfter::value));
        spec = spec.processedAt(plain(recordType, components, ProcessedAt.class, ProcessedAt::value));
        spec = spec.publishedAt(plain(recordType, components, PublishedAt.class, PublishedAt::value));
        spec = spec.headers(plain(recordType, components, Headers.class, Headers::value));
        spec = spec.group(plain(recordType, components, Group.class, Group::value));
        spec = spec.priority(plain(recordType, components, Priority.class, Priority::value));
        spec = spec.uniqueKey(plain(recordType, components, UniqueKey.class, UniqueKey::value));
        spec = spec.lastError(single(recordType, components, LastError.class, c -> text(recordType, c,
                c.getAnnotation(LastError.class).value())));
        return spec;
    }

    private static <A extends Annotation> Column plain(Class<?> type, RecordComponent[] components, Class<A> marker,
            Function<A, String> name) {
        return single(type, components, marker, c -> column(c, name.apply(c.getAnnotation(marker)), false));
    }

    private static Column single(Class<?> type, RecordComponent[] components, Class<? extends Annotation> marker,
            Function<RecordComponent, Column> read) {
        List<RecordComponent> marked = new ArrayList<>();
        for (RecordComponent c : components) {
            if (annotated(c, marker)) {
                marked.add(c);
            }
        }
        if (marked.size() > 1) {
            throw new InboxException(InboxException.Kind.DECLARATION, type.getName() + " marks " + marked.size()
                    + " components with @" + marker.getSimpleName() + ": keep it on one");
        }
        return marked.isEmpty() ? null : read.apply(marked.get(0));
    }

    private static boolean annotated(RecordComponent c, Class<? extends Annotation> marker) {
        AnnotatedElement element = c;
        return element.isAnnotationPresent(marker);
    }

    /** The column of a component that holds text the engine writes: a {@code String}, else a declaration error. */
    private static Column text(Class<?> type, RecordComponent c, String explicit) {
        if (c.getType() != String.class) {
            throw new InboxException(InboxException.Kind.DECLARATION, type.getName() + "." + c.getName() + " is a"
                    + " last error of type " + c.getType().getSimpleName() + ", but the engine writes text into it:"
                    + " declare it String");
        }
        return column(c, explicit, false);
    }

    private static Column column(RecordComponent c, String explicit, boolean generated) {
        String name = explicit.isEmpty() ? snakeCase(c.getName()) : explicit;
        return generated ? Column.of(name).generated() : Column.of(name);
    }

    /** {@code lockedUntil} becomes {@code locked_until}. */
    static String snakeCase(String name) {
        StringBuilder out = new StringBuilder(name.length() + 4);
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (Character.isUpperCase(ch)) {
                if (i > 0) {
                    out.append('_');
                }
                out.append(Character.toLowerCase(ch));
            } else {
                out.append(ch);
            }
        }
        return out.toString();
    }

    private InboxSpec with(Column attempt, Column lease, Column advisoryLock, Column payload, Column retryAfter,
            Column processedAt, Column publishedAt, Column headers, Column group, Column priority, Isolation isolation,
            SqliteMode mode, QueueClock clock) {
        return new InboxSpec(table, id, attempt, lease, advisoryLock, payload, retryAfter, processedAt, publishedAt,
                headers, group, priority, uniqueKey, lastError, isolation, mode, clock);
    }

    /**
     * The column of the jobs' unique keys ({@link PublishOptions#uniqueKey(String)}); the table needs
     * a unique index on it alone.
     */
    public InboxSpec uniqueKey(Column c) {
        return new InboxSpec(table, id, attempt, lease, advisoryLock, payload, retryAfter, processedAt, publishedAt,
                headers, group, priority, c, lastError, isolation, mode, clock);
    }

    /**
     * The column that keeps why the newest attempt failed ({@link LastError}), written with each
     * retry and each move into the dead-letter table; a text column, nullable.
     */
    public InboxSpec lastError(Column c) {
        return new InboxSpec(table, id, attempt, lease, advisoryLock, payload, retryAfter, processedAt, publishedAt,
                headers, group, priority, uniqueKey, c, isolation, mode, clock);
    }

    public InboxSpec attempt(Column c) {
        return with(c, lease, advisoryLock, payload, retryAfter, processedAt, publishedAt, headers, group, priority,
                isolation, mode, clock);
    }

    public InboxSpec lease(Column c) {
        return with(attempt, c, advisoryLock, payload, retryAfter, processedAt, publishedAt, headers, group, priority,
                isolation, mode, clock);
    }

    public InboxSpec advisoryLock(Column c) {
        return with(attempt, lease, c, payload, retryAfter, processedAt, publishedAt, headers, group, priority,
                isolation, mode, clock);
    }

    public InboxSpec payload(Column c) {
        return with(attempt, lease, advisoryLock, c, retryAfter, processedAt, publishedAt, headers, group, priority,
                isolation, mode, clock);
    }

    public InboxSpec retryAfter(Column c) {
        return with(attempt, lease, advisoryLock, payload, c, processedAt, publishedAt, headers, group, priority,
                isolation, mode, clock);
    }

    public InboxSpec processedAt(Column c) {
        return with(attempt, lease, advisoryLock, payload, retryAfter, c, publishedAt, headers, group, priority,
                isolation, mode, clock);
    }

    public InboxSpec publishedAt(Column c) {
        return with(attempt, lease, advisoryLock, payload, retryAfter, processedAt, c, headers, group, priority,
                isolation, mode, clock);
    }

    public InboxSpec headers(Column c) {
        return with(attempt, lease, advisoryLock, payload, retryAfter, processedAt, publishedAt, c, group, priority,
                isolation, mode, clock);
    }

    public InboxSpec group(Column c) {
        return with(attempt, lease, advisoryLock, payload, retryAfter, processedAt, publishedAt, headers, c, priority,
                isolation, mode, clock);
    }

    public InboxSpec priority(Column c) {
        return with(attempt, lease, advisoryLock, payload, retryAfter, processedAt, publishedAt, headers, group, c,
                isolation, mode, clock);
    }

    public InboxSpec isolation(Isolation level) {
        return with(attempt, lease, advisoryLock, payload, retryAfter, processedAt, publishedAt, headers, group,
                priority, Objects.requireNonNull(level), mode, clock);
    }

    public InboxSpec mode(SqliteMode sqliteMode) {
        return with(attempt, lease, advisoryLock, payload, retryAfter, processedAt, publishedAt, headers, group,
                priority, isolation, Objects.requireNonNull(sqliteMode), clock);
    }

    public InboxSpec clock(QueueClock queueClock) {
        return with(attempt, lease, advisoryLock, payload, retryAfter, processedAt, publishedAt, headers, group,
                priority, isolation, mode, Objects.requireNonNull(queueClock));
    }

    /**
     * The claim form the columns select, after checking the description is whole.
     *
     * @throws InboxException {@code DECLARATION} naming the table and what to change
     */
    public ClaimForm claimForm() {
        if (payload == null) {
            throw declaration("has no payload column: add one with .payload(Column.of(\"payload\")) or @Payload");
        }
        if (lease != null && advisoryLock != null) {
            throw declaration("declares both a lease column (" + lease.name() + ") and an advisory lock column ("
                    + advisoryLock.name() + "): keep the one of the claim form you want");
        }
        if (lease != null && clock == QueueClock.DATABASE) {
            throw declaration("is a lease table on the database's clock: the lease expiry is computed on the host,"
                    + " so remove clock = DATABASE or the lease column");
        }
        if (lease != null) {
            return ClaimForm.LEASE;
        }
        return advisoryLock != null ? ClaimForm.ADVISORY : ClaimForm.ROW_LOCK;
    }

    private InboxException declaration(String what) {
        return new InboxException(InboxException.Kind.DECLARATION, "table " + table + " " + what);
    }

    public String table() {
        return table;
    }

    public Column id() {
        return id;
    }

    public Optional<Column> attempt() {
        return Optional.ofNullable(attempt);
    }

    public Optional<Column> lease() {
        return Optional.ofNullable(lease);
    }

    public Optional<Column> advisoryLock() {
        return Optional.ofNullable(advisoryLock);
    }

    public Optional<Column> payload() {
        return Optional.ofNullable(payload);
    }

    public Optional<Column> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    public Optional<Column> processedAt() {
        return Optional.ofNullable(processedAt);
    }

    public Optional<Column> publishedAt() {
        return Optional.ofNullable(publishedAt);
    }

    public Optional<Column> headers() {
        return Optional.ofNullable(headers);
    }

    public Optional<Column> group() {
        return Optional.ofNullable(group);
    }

    public Optional<Column> priority() {
        return Optional.ofNullable(priority);
    }

    public Optional<Column> uniqueKey() {
        return Optional.ofNullable(uniqueKey);
    }

    public Optional<Column> lastError() {
        return Optional.ofNullable(lastError);
    }

    public Isolation isolation() {
        return isolation;
    }

    public SqliteMode mode() {
        return mode;
    }

    public QueueClock clock() {
        return clock;
    }

    /** Every column the description names, the id first. */
    public List<Column> columns() {
        List<Column> all = new ArrayList<>();
        all.add(id);
        for (Column c : new Column[] {attempt, lease, advisoryLock, payload, retryAfter, processedAt, publishedAt,
                headers, group, priority, uniqueKey, lastError}) {
            if (c != null) {
                all.add(c);
            }
        }
        return all;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof InboxSpec other && table.equals(other.table) && columnsEqual(other)
                && isolation == other.isolation && mode == other.mode && clock == other.clock;
    }

    private boolean columnsEqual(InboxSpec o) {
        return id.equals(o.id) && Objects.equals(attempt, o.attempt) && Objects.equals(lease, o.lease)
                && Objects.equals(advisoryLock, o.advisoryLock) && Objects.equals(payload, o.payload)
                && Objects.equals(retryAfter, o.retryAfter) && Objects.equals(processedAt, o.processedAt)
                && Objects.equals(publishedAt, o.publishedAt)
                && Objects.equals(headers, o.headers) && Objects.equals(group, o.group)
                && Objects.equals(priority, o.priority) && Objects.equals(uniqueKey, o.uniqueKey)
                && Objects.equals(lastError, o.lastError);
    }

    @Override
    public int hashCode() {
        return Objects.hash(table, id, attempt, lease, advisoryLock, payload, retryAfter, processedAt, publishedAt,
                headers, group, priority, uniqueKey, lastError, isolation, mode, clock);
    }

    @Override
    public String toString() {
        return "InboxSpec[table=" + table + ", columns=" + columns() + ", isolation=" + isolation + ", mode=" + mode
                + ", clock=" + clock + "]";
    }
}
