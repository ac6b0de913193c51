package dev.inbox.internal.broker;

import dev.inbox.ClaimForm;
import dev.inbox.DeadLetter;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.JobPage;
import dev.inbox.JobQuery;
import dev.inbox.JobState;
import dev.inbox.QueuedJob;
import dev.inbox.RunNow;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.jdbc.RowIds;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An operator's view of one queue's unfinished jobs: pages of them by state and payload text in
 * the order of their ids, one by id, and one made due now. What a row shows is what any server
 * sees in the table: a lease tells a job in work, a row or advisory lock does not.
 */
public final class JobRows {
    private static final JobState[] STATES = {JobState.DUE, JobState.SCHEDULED, JobState.IN_WORK};

    private final String queue;
    private final PublishQueue target;
    private final Dialect dialect;
    private final TableShape shape;
    private final boolean binary;
    /** The columns every list reads, and the table's unfinished rows they come from. */
    private final String select;
    private final String state;
    private final Sql one;
    /** Null where the table keeps no due time apart from its lease. */
    private final Sql runNow;
    /** The row lock form's lock of the row, not waiting for a delivery's; null in the other forms. */
    private final Sql lock;
    /** Tells whether the caller is in a transaction its writes join. */
    private final DeliveryTransactions transactions;

    JobRows(String queue, PublishQueue target, DeliveryTransactions transactions) {
        this.queue = queue;
        this.target = target;
        this.transactions = transactions;
        this.dialect = target.database().dialect();
        this.shape = target.table().shape();
        this.binary = target.table().binaryPayload();
        InboxSpec spec = shape.spec();
        String payload = shape.name(spec.payload().orElseThrow());
        this.state = dialect.jobState(shape);
        this.select = "SELECT " + shape.id() + ", " + state + ", " + shape.name(spec.attempt()).orElse("0") + ", "
                + shape.name(spec.retryAfter()).orElse("NULL") + ", " + shape.name(spec.lease()).orElse("NULL") + ", "
                + shape.name(spec.publishedAt()).orElse("NULL") + ", " + dialect.head(payload, binary) + ", "
                + dialect.octetLength(payload, binary) + ", " + shape.name(spec.headers()).orElse("NULL") + ", "
                + shape.name(spec.lastError()).orElse("NULL") + " FROM " + shape.table() + " WHERE "
                + shape.name(spec.processedAt()).map(p -> p + " IS NULL").orElse("1 = 1");
        this.one = new Sql("job", select + " AND " + shape.id() + " = :id");
        String update = dialect.runNow(shape);
        this.runNow = update == null ? null : new Sql("run now", update);
        this.lock = spec.claimForm() == ClaimForm.ROW_LOCK ? new Sql("run now lock", dialect.cancel(shape).lock()) : null;
    }

    /** One page of the jobs {@code query} selects. */
    public JobPage page(JobQuery query) {
        StringBuilder sql = new StringBuilder(select);
        InboxSpec spec = shape.spec();
        switch (query.state()) {
            case ALL -> { }
            case FAILING -> sql.append(" AND ").append(shape.name(spec.lastError()).orElseThrow(() -> refused(
                    "failing jobs", "a @LastError column, where a retry writes why the attempt failed")))
                    .append(" IS NOT NULL");
            case IN_WORK -> {
                if (spec.claimForm() != ClaimForm.LEASE) {
                    throw refused("jobs in work", "the lease form: the " + spec.claimForm() + " form holds its"
                            + " rows by locks no query sees (QueueStats.inWork() counts this server's)");
                }
                sql.append(" AND ").append(state).append(" = 2");
            }
            case DUE -> sql.append(" AND ").append(state).append(" = 0");
            case SCHEDULED -> sql.append(" AND ").append(state).append(" = 1");
        }
        if (query.payloadContains() != null) {
            sql.append(" AND ").append(dialect.contains(shape.name(spec.payload().orElseThrow()), binary));
        }
        if (query.after() != null) {
            sql.append(" AND ").append(shape.id()).append(" > :after");
        }
        sql.append(" ORDER BY ").append(shape.id()).append(" LIMIT :limit");
        Sql list = new Sql("jobs", sql.toString());
        Object after = query.after() == null ? null : JobIds.of(shape, query.after());
        try (Connection connection = target.database().open(); PreparedStatement ps = list.prepare(connection)) {
            bindNow(list, ps);
            list.setInt(ps, "head", DeadLetter.PREVIEW);
            list.set(ps, "after", after);
            list.setInt(ps, "limit", query.limit() + 1);
            if (binary) {
                list.setBytes(ps, "text", query.payloadContains() == null ? null
                        : query.payloadContains().getBytes(StandardCharsets.UTF_8));
            } else {
                list.setString(ps, "text", query.payloadContains());
            }
            List<QueuedJob> jobs = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    jobs.add(job(rs));
                }
            }
            if (jobs.size() <= query.limit()) {
                return new JobPage(query, jobs, null);
            }
            jobs.remove(jobs.size() - 1);
            return new JobPage(query, jobs, jobs.get(jobs.size() - 1).id());
        } catch (SQLException e) {
            throw failed("listing the jobs of", e);
        }
    }

    /** Job {@code id} with at most {@code characters} of its payload (bytes, for a binary column). */
    public Optional<QueuedJob> one(Object given, int characters) {
        if (characters < 1) {
            throw new IllegalArgumentException("characters = " + characters + ": read at least one of the payload");
        }
        Object id = JobIds.of(shape, given);
        try (Connection connection = target.database().open(); PreparedStatement ps = one.prepare(connection)) {
            bindNow(one, ps);
            one.setInt(ps, "head", characters);
            one.set(ps, "id", id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(job(rs)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw failed("reading job " + id + " of", e);
        }
    }

    /**
     * Makes job {@code id} due now where it is scheduled and no lease holds it, on a connection
     * that joins the caller's transaction where there is one, and wakes the queue (once that commits).
     */
    public RunNow runNow(Object given) {
        Object id = JobIds.of(shape, given);
        try (Connection connection = target.database().open()) {
            if (runNow != null) {
                RunNow made = lock == null ? update(connection, id)
                        : JdbcTransaction.joinOrRun(connection, transactions.callerInTransaction(),
                                () -> locked(connection, id) ? update(connection, id)
                                        : one(id, 1).isPresent() ? RunNow.IN_WORK : RunNow.NOT_FOUND);
                if (made == RunNow.DUE_NOW) {
                    target.wakes().written(queue, connection);
                }
                if (made != null) {
                    return made;
                }
            }
        } catch (SQLException e) {
            throw failed("making job " + id + " due now in", e);
        }
        return one(id, 1).map(job -> job.state() == JobState.IN_WORK ? RunNow.IN_WORK : RunNow.ALREADY_DUE)
                .orElse(RunNow.NOT_FOUND);
    }

    /** {@link RunNow#DUE_NOW} where the update made the row due, else null: another look tells why not. */
    private RunNow update(Connection connection, Object id) throws SQLException {
        try (PreparedStatement ps = runNow.prepare(connection)) {
            bindNow(runNow, ps);
            runNow.set(ps, "id", id);
            return ps.executeUpdate() > 0 ? RunNow.DUE_NOW : null;
        }
    }

    /**
     * Whether this transaction locked row {@code id}: false where it is gone or a delivery's lock
     * holds it, which is skipped, not waited for (MariaDB's update would wait for it, due or not).
     */
    private boolean locked(Connection connection, Object id) throws SQLException {
        try (PreparedStatement ps = lock.prepare(connection)) {
            lock.set(ps, "id", id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private void bindNow(Sql sql, PreparedStatement ps) throws SQLException {
        if (sql.uses("now")) {
            sql.setTime(ps, "now", dialect.stored(target.clock().instant()), dialect);
        }
    }

    private QueuedJob job(ResultSet rs) throws SQLException {
        Object id = RowIds.read(rs, 1);
        JobState state = STATES[rs.getInt(2)];
        int attempt = rs.getInt(3);
        if (state == JobState.IN_WORK && attempt > 0) {
            attempt--; // the lease form counts an attempt as its claim takes it
        }
        long length = rs.getLong(8);
        String payload = binary ? DeadLetterRows.text(rs.getBytes(7), length) : rs.getString(7);
        return new QueuedJob(id, state, attempt, dialect.readTime(rs, 4), dialect.readTime(rs, 5),
                dialect.readTime(rs, 6), payload, length, rs.getString(9), rs.getString(10));
    }

    private InboxException refused(String what, String needs) {
        return new InboxException(InboxException.Kind.DECLARATION, "queue " + queue + ": listing " + what
                + " of table " + shape.spec().table() + " needs " + needs + "; list JobState.ALL, DUE or SCHEDULED");
    }

    private InboxException failed(String what, SQLException e) {
        return new InboxException(InboxException.Kind.DATABASE, "queue " + queue + ": " + what + " table "
                + shape.spec().table() + " failed: " + target.database().redact(e.getMessage()), e);
    }
}
