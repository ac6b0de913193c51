package dev.inbox.internal.broker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.DeadLetter;
import dev.inbox.DeadLetterFilter;
import dev.inbox.InboxException;
import dev.inbox.PublishOptions;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.jdbc.RowIds;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An operator's view of one queue's dead-letter table: its rows listed newest first, one moved
 * back into the queue as a new job on its first attempt, or one deleted. A retry inserts and
 * deletes in one transaction, so a row retried twice at once becomes one job, and the second
 * retry finds it gone.
 */
public final class DeadLetterRows {
    /** The letters a bulk retry reads the ids of at a time. */
    private static final int PAGE = 500;
    private final String queue;
    private final String deadTable;
    private final PublishQueue target;
    private final BrokerPublisher<?> publisher;
    private final ObjectMapper json;
    private final Dialect dialect;
    private final boolean headers;
    /** True where the queue, and so its dead letters, keep a last error. */
    private final boolean lastError;
    private final Sql list;
    private final Sql one;
    private final Sql read;
    private final Sql delete;
    /** Tells whether the caller is in a transaction its writes join. */
    private final DeliveryTransactions transactions;

    DeadLetterRows(String queue, String deadTable, PublishQueue target, BrokerPublisher<?> publisher,
            ObjectMapper json, DeliveryTransactions transactions) {
        this.queue = queue;
        this.transactions = transactions;
        this.deadTable = deadTable;
        this.target = target;
        this.publisher = publisher;
        this.json = json;
        this.dialect = target.database().dialect();
        this.headers = target.table().spec().headers().isPresent();
        this.lastError = target.table().spec().lastError().isPresent();
        String table = dialect.quote(deadTable);
        String id = dialect.quote("id");
        String content = dialect.quote("payload") + (headers ? ", " + dialect.quote("headers") : "");
        boolean binary = target.table().binaryPayload();
        String columns = "SELECT " + id + ", " + dialect.head(dialect.quote("payload"), binary) + ", "
                + dialect.octetLength(dialect.quote("payload"), binary) + (headers ? ", " + dialect.quote("headers") : "")
                + ", " + dialect.quote("attempt") + ", " + dialect.quote("error") + ", " + dialect.quote("failed_at")
                + target.table().spec().lastError().map(e -> ", " + dialect.quote(e.name())).orElse("")
                + " FROM " + table;
        this.list = new Sql("dead letters", columns + " ORDER BY " + dialect.quote("failed_at") + " DESC, " + id
                + " DESC LIMIT :limit");
        this.one = new Sql("dead letter head", columns + " WHERE " + id + " = :id");
        this.read = new Sql("dead letter", "SELECT " + content + " FROM " + table + " WHERE " + id + " = :id");
        this.delete = new Sql("dead letter delete", "DELETE FROM " + table + " WHERE " + id + " = :id");
    }

    /** The newest {@code limit} dead letters, each with the head of its payload ({@link DeadLetter#PREVIEW}). */
    public List<DeadLetter> list(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit = " + limit + ": list at least one dead letter");
        }
        try (Connection connection = target.database().open(); PreparedStatement ps = list.prepare(connection)) {
            list.setInt(ps, "head", DeadLetter.PREVIEW);
            list.setInt(ps, "limit", limit);
            List<DeadLetter> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(letter(rs));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw failed("reading", e);
        }
    }

    /**
     * Dead letter {@code id} with at most {@code characters} of its payload (bytes, for a binary
     * payload column): the database sends no more.
     */
    public DeadLetter one(Object given, int characters) {
        if (characters < 1) {
            throw new IllegalArgumentException("characters = " + characters + ": read at least one of the payload");
        }
        Object id = JobIds.of(target.table().shape(), given);
        try (Connection connection = target.database().open(); PreparedStatement ps = one.prepare(connection)) {
            one.setInt(ps, "head", characters);
            one.set(ps, "id", id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw gone(id);
                }
                return letter(rs);
            }
        } catch (SQLException e) {
            throw failed("reading row " + id + " of", e);
        }
    }

    private DeadLetter letter(ResultSet rs) throws SQLException {
        Object id = RowIds.read(rs, 1);
        long length = rs.getLong(3);
        String payload = target.table().binaryPayload() ? text(rs.getBytes(2), length) : rs.getString(2);
        int column = 4;
        String headerText = headers ? rs.getString(column++) : null;
        return new DeadLetter(id, payload, headerText, rs.getInt(column++), rs.getString(column++),
                dialect.readTime(rs, column++), length, lastError ? rs.getString(column) : null);
    }

    /**
     * Moves dead letter {@code id} back into the queue, as a new job on its first attempt: in a
     * transaction of its own, or inside the caller's (a JTA transaction the connection joined),
     * with whose writes it then commits or rolls back.
     */
    public void retry(Object given) {
        Object id = JobIds.of(target.table().shape(), given);
        try (Connection connection = target.database().open()) {
            JdbcTransaction.joinOrRun(connection, transactions.callerInTransaction(), () -> {
                if (dialect.capabilities().writeLocksDatabase()) {
                    // SQLite: the write lock first, so that a second retry waits for this one instead of
                    // failing to upgrade its read lock; it then finds the row gone.
                    try (Statement lock = connection.createStatement()) {
                        lock.executeUpdate(dialect.takeWriteLock(target.table().shape()));
                    }
                }
                byte[] payload;
                String headerText;
                try (PreparedStatement ps = read.prepare(connection)) {
                    read.set(ps, "id", id);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            throw gone(id);
                        }
                        payload = readPayload(rs, 1);
                        headerText = headers ? rs.getString(2) : null;
                    }
                }
                if (deleteRow(connection, id) == 0) {
                    // Retried or deleted by someone else meanwhile. Deleted before the insert, so that
                    // nothing is written into a caller's transaction that goes on.
                    throw gone(id);
                }
                publisher.insertEncoded(target, connection, List.of(payload), options(id, headerText));
                return null;
            });
            target.wakes().written(queue, connection); // at once, or once the caller's transaction commits
        } catch (SQLException e) {
            throw failed("moving row " + id + " back from", e);
        }
    }

    /**
     * Moves back the letters {@code filter} takes, each as {@link #retry} does, and answers how many
     * it moved: those of its ids, or those matching it, read in pages of ids up to the highest id
     * matching as it starts, so that a retried job that fails for good again meanwhile is not moved
     * a second time.
     */
    public int retryAll(DeadLetterFilter filter) {
        if (filter.ids() != null) {
            return (int) filter.ids().stream().filter(this::retried).count();
        }
        int moved = 0;
        List<Object> last = ids(filter, "MAX", null, null);
        if (last.isEmpty() || last.get(0) == null) {
            return 0;
        }
        Object upTo = last.get(0);
        Object after = null;
        for (List<Object> page = ids(filter, null, null, upTo); !page.isEmpty(); page = ids(filter, null, after, upTo)) {
            for (Object id : page) {
                moved += retried(id) ? 1 : 0;
            }
            after = page.get(page.size() - 1);
        }
        return moved;
    }

    private boolean retried(Object id) {
        try {
            retry(id);
            return true;
        } catch (InboxException e) {
            if (e.kind() == InboxException.Kind.NOT_FOUND) {
                return false; // retried or deleted meanwhile
            }
            throw e;
        }
    }

    /** Deletes the letters {@code filter} takes, and answers how many. */
    public int deleteAll(DeadLetterFilter filter) {
        try (Connection connection = target.database().open()) {
            if (filter.ids() != null) {
                int deleted = 0;
                for (Object given : filter.ids()) {
                    deleted += deleteRow(connection, JobIds.of(target.table().shape(), given));
                }
                return deleted;
            }
            Sql delete = new Sql("dead letters delete", "DELETE FROM " + dialect.quote(deadTable) + where(filter));
            try (PreparedStatement ps = delete.prepare(connection)) {
                bind(delete, ps, filter);
                return ps.executeUpdate();
            }
        } catch (SQLException e) {
            throw failed("deleting rows of", e);
        }
    }

    /**
     * The ids of the next {@link #PAGE} letters {@code filter} matches after {@code after} and up to
     * {@code upTo} (nulls: from the first, to the last), or with {@code aggregate} that function of them.
     */
    private List<Object> ids(DeadLetterFilter filter, String aggregate, Object after, Object upTo) {
        String id = dialect.quote("id");
        Sql page = new Sql("dead letter ids", "SELECT " + (aggregate == null ? id : aggregate + "(" + id + ")")
                + " FROM " + dialect.quote(deadTable) + where(filter)
                + (after == null ? "" : " AND " + id + " > :after") + (upTo == null ? "" : " AND " + id + " <= :upTo")
                + (aggregate == null ? " ORDER BY " + id + " LIMIT " + PAGE : ""));
        try (Connection connection = target.database().open(); PreparedStatement ps = page.prepare(connection)) {
            bind(page, ps, filter);
            page.set(ps, "after", after);
            page.set(ps, "upTo", upTo);
            List<Object> ids = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(RowIds.read(rs, 1));
                }
            }
            return ids;
        } catch (SQLException e) {
            throw failed("reading", e);
        }
    }

    private String where(DeadLetterFilter filter) {
        StringBuilder where = new StringBuilder(" WHERE 1 = 1");
        if (filter.errorContains() != null) {
            where.append(" AND (").append(dialect.contains(dialect.quote("error"), false));
            target.table().spec().lastError().ifPresent(c -> where.append(" OR ")
                    .append(dialect.contains(dialect.quote(c.name()), false)));
            where.append(")");
        }
        if (filter.failedBefore() != null) {
            where.append(" AND ").append(dialect.quote("failed_at")).append(" < :before");
        }
        return where.toString();
    }

    private void bind(Sql sql, PreparedStatement ps, DeadLetterFilter filter) throws SQLException {
        sql.setString(ps, "text", filter.errorContains());
        if (filter.failedBefore() != null) {
            sql.setTime(ps, "before", dialect.stored(filter.failedBefore()), dialect);
        }
    }

    /** Deletes dead letter {@code id}. */
    public void delete(Object given) {
        Object id = JobIds.of(target.table().shape(), given);
        try (Connection connection = target.database().open()) {
            if (deleteRow(connection, id) == 0) {
                throw gone(id);
            }
        } catch (SQLException e) {
            throw failed("deleting row " + id + " from", e);
        }
    }

    private int deleteRow(Connection connection, Object id) throws SQLException {
        try (PreparedStatement ps = delete.prepare(connection)) {
            delete.set(ps, "id", id);
            return ps.executeUpdate();
        }
    }

    /** The new job keeps the dead row's headers, and its id where the queue table does not generate ids. */
    private PublishOptions options(Object id, String headerText) {
        PublishOptions options = PublishOptions.NONE;
        if (!target.table().spec().id().isGenerated()) {
            options = options.id(id);
        }
        if (headerText != null && !headerText.isBlank()) {
            try {
                options = options.headers(json.readValue(headerText, new TypeReference<Map<String, String>>() {}));
            } catch (JsonProcessingException e) {
                throw new InboxException(InboxException.Kind.DATABASE, "queue " + queue + ": dead letter " + id
                        + " of table " + deadTable + " has headers that are not a JSON object of strings: "
                        + e.getOriginalMessage(), e);
            }
        }
        return options;
    }

    /**
     * The head of a binary payload as text: a head cut inside a character's bytes ends before that
     * character, rather than in a replacement character.
     */
    static String text(byte[] head, long length) {
        // Not at the end of its input, the decoder leaves an incomplete last character unread.
        CharBuffer text = CharBuffer.allocate(head.length);
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        boolean whole = head.length >= length;
        decoder.decode(ByteBuffer.wrap(head), text, whole);
        if (whole) {
            decoder.flush(text);
        }
        return text.flip().toString();
    }

    /** A dead row's payload as bytes, from a binary or a text column as the queue's table has it. */
    private byte[] readPayload(ResultSet rs, int column) throws SQLException {
        return target.table().binaryPayload() ? rs.getBytes(column)
                : rs.getString(column).getBytes(StandardCharsets.UTF_8);
    }

    private InboxException gone(Object id) {
        return new InboxException(InboxException.Kind.NOT_FOUND, "queue " + queue + ": table " + deadTable
                + " has no dead letter " + id + " (retried or deleted already, or never there)");
    }

    private InboxException failed(String what, SQLException e) {
        return new InboxException(InboxException.Kind.DATABASE, "queue " + queue + ": " + what + " dead-letter table "
                + deadTable + " failed: " + target.database().redact(e.getMessage()), e);
    }
}
