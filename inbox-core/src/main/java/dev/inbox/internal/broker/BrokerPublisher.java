package dev.inbox.internal.broker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.PublishOptions;
import dev.inbox.Published;
import dev.inbox.Publisher;
import dev.inbox.internal.codec.PayloadWriter;
import dev.inbox.internal.jdbc.Database;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.jdbc.RowIds;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.internal.jdbc.WriteGate;
import dev.inbox.internal.runner.CurrentDelivery;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.JobTracing;
import java.lang.System.Logger.Level;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A broker's publisher for one queue: encodes the payload with the broker's codec and runs the table's insert
 * (prepared when the broker opened), then wakes the queue once the row is visible.
 */
public final class BrokerPublisher<T> implements Publisher<T> {
    private static final System.Logger LOG = System.getLogger(BrokerPublisher.class.getName());

    private final Lifecycle lifecycle;
    /** Set once the missing headers column has been logged, for tracing that has a context to carry. */
    private volatile boolean toldNoHeaders;
    private final String queue;
    private final InboxSpec spec;
    private final PayloadWriter writer;
    private final ObjectWriter headersWriter;

    /** {@code json} writes the headers, which are Inbox's format; {@code writer} the application's payloads. */
    public BrokerPublisher(Lifecycle lifecycle, String queue, InboxSpec spec, ObjectMapper json, PayloadWriter writer) {
        this.lifecycle = lifecycle;
        this.queue = queue;
        this.spec = spec;
        this.writer = writer;
        this.headersWriter = json.writerFor(Map.class);
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public Published publish(T payload, PublishOptions options) {
        return publish(List.of(required(payload)), options, false).get(0);
    }

    @Override
    public List<Published> publishAll(Collection<? extends T> payloads, PublishOptions options) {
        return publish(payloads, options, true);
    }

    private List<Published> publish(Collection<?> payloads, PublishOptions options, boolean inOneTransaction) {
        PublishQueue target = lifecycle.publishing(queue);
        checkIds(payloads, options);
        if (payloads.isEmpty()) {
            return List.of();
        }
        return traced(target, payloads.size(), options, traced -> publish(target, payloads, traced, inOneTransaction));
    }

    /**
     * Runs {@code insert} in a publish trace, with the trace's context added to the headers
     * where the table has a headers column.
     */
    private List<Published> traced(PublishQueue target, int jobs, PublishOptions options,
            Function<PublishOptions, List<Published>> insert) {
        JobTracing.PublishTrace trace = target.tracing().publishing(queue, jobs);
        PublishOptions traced = options;
        if (spec.headers().isPresent()) {
            Map<String, String> headers = trace.headers(options.headers());
            traced = headers == options.headers() ? options : options.headers(headers);
        } else if (trace != JobTracing.PublishTrace.NONE && !toldNoHeaders) {
            toldNoHeaders = true;
            LOG.log(Level.DEBUG, "queue {0}: table {1} has no headers column, so its jobs do not carry the"
                    + " publisher's trace context and their deliveries begin traces of their own", queue, spec.table());
        }
        try {
            List<Published> published = insert.apply(traced);
            trace.ended(published, null);
            return published;
        } catch (RuntimeException | Error e) {
            trace.ended(null, e);
            throw e;
        }
    }

    private List<Published> publish(PublishQueue target, Collection<?> payloads, PublishOptions options,
            boolean inOneTransaction) {
        Database database = target.database();
        CurrentDelivery delivery = CurrentDelivery.current();
        if (delivery != null && delivery.database() == database) {
            // Inside a transactional delivery of this broker: the insert joins its transaction.
            return insertThrough(target, delivery.connection(), payloads, options);
        }
        if (delivery != null && delivery.locksDatabase() && database.dialect().capabilities().writeLocksDatabase()
                && database.sameAs(delivery.database())) {
            throw new InboxException(InboxException.Kind.WRITE_LOCK_HELD, "queue " + queue + ": this thread's"
                    + " transactional delivery holds the database's write lock until it settles, so this publish"
                    + " would wait for ever; publish through the delivery's broker, or with"
                    + " publish(delivery.connection(), payload), to join its transaction");
        }
        // One writer at a time (SQLite): the publish waits its turn behind the engine's writers, where in
        // SQLite's busy handler it would look for the lock least often of all the waiters. The turn comes
        // before the connection, as a delivery's does: a publish that held a connection while it waited for
        // the turn of a delivery waiting for a connection stalled both until the gate's 10 s wait gave out.
        try (WriteGate.Turn turn = database.writeTurn(); Connection connection = database.open()) {
            // A connection already in a transaction (a JTA one) takes the batch into it, and its write lock
            // lasts to a commit no turn spans.
            boolean own = connection.getAutoCommit();
            if (!own) {
                turn.close();
            }
            return insertOn(target, connection, payloads, options, inOneTransaction && own);
        } catch (SQLException e) {
            throw failed(target, e);
        }
    }

    /** Inserts through a connection the publish opened; a batch in one transaction where {@code ownBatch}. */
    private List<Published> insertOn(PublishQueue target, Connection connection, Collection<?> payloads,
            PublishOptions options, boolean ownBatch) throws SQLException {
        if (!ownBatch || payloads.size() < 2) {
            return insertThrough(target, connection, payloads, options);
        }
        List<byte[]> encoded = encodeAll(payloads);
        Sql rows = target.table().insertRows(target.database().dialect(), encoded);
        List<Published> ids;
        if (rows != null) {
            ids = insertEncoded(target, connection, encoded, options, rows); // one statement: it commits alone
        } else {
            // Begun by a statement where the dialect has one: on MySQL and MariaDB a round trip fewer than
            // switching autocommit off and on again.
            ids = JdbcTransaction.run(connection, target.database().dialect(), -1,
                    () -> insertEncoded(target, connection, encoded, options, null));
        }
        target.wakes().wake(queue);
        return ids;
    }

    @Override
    public Published publish(Connection connection, T payload, PublishOptions options) {
        PublishQueue target = lifecycle.publishing(queue);
        List<T> payloads = List.of(required(payload));
        return traced(target, 1, options, traced -> insertThrough(target, connection, payloads, traced)).get(0);
    }

    @Override
    public List<Published> publishAll(Connection connection, Collection<? extends T> payloads,
            PublishOptions options) {
        PublishQueue target = lifecycle.publishing(queue);
        checkIds(payloads, options);
        return payloads.isEmpty() ? List.of() : traced(target, payloads.size(), options,
                traced -> insertThrough(target, connection, payloads, traced));
    }

    /** A job needs a payload its handler can take: null is refused before anything is written. */
    private <P> P required(P payload) {
        if (payload == null) {
            throw new InboxException(InboxException.Kind.DECLARATION, "queue " + queue + ": a null payload cannot be"
                    + " published; publish a value its handler can take");
        }
        return payload;
    }

    private void checkIds(Collection<?> payloads, PublishOptions options) {
        if ((options.id() != null || options.unique()) && payloads.size() > 1) {
            throw new InboxException(InboxException.Kind.DECLARATION, "queue " + queue + ": one "
                    + (options.unique() ? "unique key" : "id") + " for " + payloads.size() + " jobs; "
                    + (options.unique() ? "a unique key" : "an id") + " names one job, so publish those one by one");
        }
    }

    /** Inserts through {@code connection}, and wakes the queue once the rows are visible. */
    private List<Published> insertThrough(PublishQueue target, Connection connection, Collection<?> payloads,
            PublishOptions options) {
        try {
            List<Published> published = insert(target, connection, payloads, options);
            if (published.get(0).isNew()) {
                target.wakes().written(queue, connection);
            }
            return published;
        } catch (SQLException e) {
            throw failed(target, e);
        }
    }

    private InboxException failed(PublishQueue target, SQLException e) {
        String why = target.database().redact(e.getMessage());
        if (target.database().dialect().timedOut(e)) {
            return new InboxException(InboxException.Kind.DATABASE, "queue " + queue + ": the insert into table "
                    + spec.table() + " did not finish within the publish timeout of " + target.timeoutSeconds()
                    + " s, and nothing was inserted: another transaction holds a lock on the table (or the database's"
                    + " write lock) and has not let go (" + why + "); end that transaction, or raise"
                    + " InboxBroker.publishTimeout", e);
        }
        return new InboxException(InboxException.Kind.DATABASE, "queue " + queue + ": the insert into table "
                + spec.table() + " failed: " + why, e);
    }

    /** Inserts the payloads (one statement, or one batch), then notifies listeners once. */
    private List<Published> insert(PublishQueue target, Connection connection, Collection<?> payloads,
            PublishOptions options) throws SQLException {
        return insertEncoded(target, connection, encodeAll(payloads), options);
    }

    private List<byte[]> encodeAll(Collection<?> payloads) {
        if (payloads.size() == 1) {
            return List.of(writer.write(required(payloads.iterator().next())));
        }
        for (Object payload : payloads) {
            required(payload);
        }
        return writer.writeAll(payloads);
    }

    /**
     * Inserts payloads already written as JSON (a dead letter's, moved back) on {@code connection},
     * in its transaction; the caller wakes the queue once it commits. A job with a unique key
     * another row holds inserts nothing: a {@link Published#isDuplicate() duplicate}.
     */
    List<Published> insertEncoded(PublishQueue target, Connection connection, List<byte[]> payloads,
            PublishOptions options) throws SQLException {
        return insertEncoded(target, connection, payloads, options,
                target.table().insertRows(target.database().dialect(), payloads));
    }

    /** As above, with the insert of all rows in one statement already chosen ({@code rows}; null for none). */
    private List<Published> insertEncoded(PublishQueue target, Connection connection, List<byte[]> payloads,
            PublishOptions options, Sql rows) throws SQLException {
        OpenedTable table = target.table();
        Dialect dialect = target.database().dialect();
        check(options);
        Sql insert = rows != null ? rows : options.unique() ? table.insertUnique() : table.insert();
        Instant now = target.clock().instant();
        Duration delay = options.delayFrom(now);
        Instant due = delay.isZero() ? null : dialect.deadline(now, delay);
        Instant published = insert.uses("published") ? dialect.stored(now) : null;
        String headers = insert.uses("headers") && !options.headers().isEmpty() ? headers(options) : null;
        boolean generated = spec.id().isGenerated();
        if (rows == null && payloads.size() > 1 && table.multiRowInserts()) {
            return insertInStatements(target, connection, payloads, options);
        }
        List<Published> ids = new ArrayList<>(payloads.size());
        try (PreparedStatement ps = generated ? insert.prepareReturning(connection, spec.id().name())
                : insert.prepare(connection)) {
            // Bounds the wait for a lock on every database, on the caller's connection too; set on the driver's
            // statement object, no round trip.
            ps.setQueryTimeout(target.timeoutSeconds());
            // What every row shares: bound once for one statement of many rows, for each row of a batch.
            Binding shared = () -> {
                if (insert.uses("id")) {
                    insert.set(ps, "id", options.id());
                }
                insert.setString(ps, "headers", headers);
                if (insert.uses("group")) {
                    insert.setString(ps, "group", options.group());
                }
                if (insert.uses("priority")) {
                    insert.setInt(ps, "priority", options.priority() == null ? 0 : options.priority());
                }
                if (insert.uses("key")) {
                    insert.setString(ps, "key", options.uniqueKey(now));
                }
                insert.setTime(ps, "due", due, dialect);
                if (published != null) {
                    insert.setTime(ps, "published", published, dialect);
                }
                insert.set(ps, "delay", delay.isZero() ? null : delay.toMillis());
            };
            for (int row = 0; row < payloads.size(); row++) {
                byte[] json = payloads.get(row);
                target.limit().check(queue, json.length);
                String text = table.binaryPayload() ? null : new String(json, StandardCharsets.UTF_8);
                if (rows != null) {
                    // One statement: each row's payload has its own place.
                    if (text == null) {
                        insert.setBytes(ps, "payload", row, json);
                    } else {
                        insert.setString(ps, "payload", row, text);
                    }
                    continue;
                }
                if (text == null) {
                    insert.setBytes(ps, "payload", json);
                } else {
                    insert.setString(ps, "payload", text);
                }
                shared.bind();
                if (payloads.size() > 1) {
                    ps.addBatch();
                }
            }
            if (rows != null) {
                shared.bind();
                readIds(ps, ps.execute(), ids);
            } else if (payloads.size() > 1) {
                ps.executeBatch();
                readIds(ps, false, ids);
            } else if (!inserted(dialect, ps)) {
                return List.of(Published.duplicate(holder(table, connection, options, now)));
            } else if (generated) {
                readIds(ps, false, ids);
            } else {
                ids.add(Published.inserted(RowIds.of(options.id())));
            }
        }
        if (ids.size() != payloads.size()) {
            // Not expected of the drivers Inbox knows; the rows are written, so only their ids are missing.
            throw new InboxException(InboxException.Kind.DATABASE, "queue " + queue + ": the driver gave "
                    + ids.size() + " ids for the " + payloads.size() + " rows inserted into table " + spec.table()
                    + "; use PostgreSQL's, MariaDB's, MySQL's or SQLite's own JDBC driver");
        }
        target.listener().published(queue, payloads.size());
        if (target.notifies()) {
            // Delivered when the insert's transaction commits, to every process listening.
            Sql notify = table.notifyStatement();
            try (PreparedStatement ps = notify.prepare(connection)) {
                notify.setString(ps, "channel", dialect.listenChannel(spec.table()));
                ps.executeQuery().close();
            }
        }
        return ids;
    }

    /**
     * A batch longer than one statement takes, as multi-row inserts that return their ids, in the
     * caller's transaction.
     */
    private List<Published> insertInStatements(PublishQueue target, Connection connection, List<byte[]> payloads,
            PublishOptions options) throws SQLException {
        List<Published> ids = new ArrayList<>(payloads.size());
        for (int from = 0, end; from < payloads.size(); from = end) {
            end = target.table().endOfOneStatement(payloads, from);
            List<byte[]> part = payloads.subList(from, end);
            Sql rows = target.table().insertRows(target.database().dialect(), part);
            if (rows == null && part.size() > 1) {
                throw new IllegalStateException("dialect " + target.database().dialect().name() + " writes no"
                        + " multi-row insert, and the driver gives no ids for a batch");
            }
            ids.addAll(insertEncoded(target, connection, part, options, rows));
        }
        return ids;
    }

    /**
     * Adds the ids an insert just wrote to {@code ids}: from its result set where it returned one
     * (its own {@code RETURNING}), else from the driver's generated keys.
     */
    private static void readIds(PreparedStatement ps, boolean resultSet, List<Published> ids) throws SQLException {
        try (ResultSet rs = resultSet ? ps.getResultSet() : ps.getGeneratedKeys()) {
            while (rs.next()) {
                ids.add(Published.inserted(RowIds.read(rs, 1)));
            }
        }
    }

    /**
     * The id of the row a duplicate met: the one holding its unique key, else the id it was given;
     * null where the key's row was settled in between (or the caller's snapshot predates it).
     */
    private static Object holder(OpenedTable table, Connection connection, PublishOptions options, Instant now)
            throws SQLException {
        if (options.unique()) {
            Sql holder = table.keyHolder();
            try (PreparedStatement ps = holder.prepare(connection)) {
                holder.setString(ps, "key", options.uniqueKey(now));
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return RowIds.read(rs, 1);
                    }
                }
            }
        }
        return options.id() == null ? null : RowIds.of(options.id());
    }

    /** Binds parameters of a prepared insert. */
    @FunctionalInterface
    private interface Binding {
        void bind() throws SQLException;
    }

    /** Runs a one-job insert: false when a unique index kept the row out (nothing inserted, or the dialect's duplicate error). */
    private static boolean inserted(Dialect dialect, PreparedStatement ps) throws SQLException {
        try {
            return ps.executeUpdate() > 0;
        } catch (SQLException e) {
            if (dialect.duplicateKey(e)) {
                return false;
            }
            throw e;
        }
    }

    private String headers(PublishOptions options) {
        try {
            return headersWriter.writeValueAsString(options.headers());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private void check(PublishOptions options) {
        require((options.delay().isZero() && options.at() == null) || spec.retryAfter().isPresent()
                || spec.lease().isPresent(), "a publish delay or due time needs a retry_after column");
        require(!options.unique() || spec.uniqueKey().isPresent(), "a unique key needs a unique-key column");
        require(options.group() == null || spec.group().isPresent(), "a group needs a group column");
        require(options.priority() == null || spec.priority().isPresent(), "a priority needs a priority column");
        require(options.headers().isEmpty() || spec.headers().isPresent(), "headers need a headers column");
        if (!spec.id().isGenerated() && options.id() == null) {
            throw new InboxException(InboxException.Kind.DECLARATION, "queue " + queue + ": table " + spec.table()
                    + " does not generate its id column " + spec.id().name()
                    + ": publish with PublishOptions.NONE.id(..) or declare the id generated");
        }
    }

    private void require(boolean ok, String what) {
        if (!ok) {
            throw new InboxException(InboxException.Kind.DECLARATION, "queue " + queue + ": " + what
                    + ", and table " + spec.table() + " has none: add the column to the table and its description");
        }
    }
}
