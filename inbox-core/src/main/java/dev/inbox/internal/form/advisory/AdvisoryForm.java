package dev.inbox.internal.form.advisory;

import dev.inbox.InboxException;
import dev.inbox.internal.form.AckBatch;
import dev.inbox.internal.form.Carry;
import dev.inbox.internal.form.CarryingClaimer;
import dev.inbox.internal.form.ClaimedRows;
import dev.inbox.internal.form.Claimer;
import dev.inbox.internal.form.Dispatch;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.FormPlan;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.internal.task.Service;
import dev.inbox.spi.AdvisoryStatements;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The advisory lock form. A claim takes a lock on each row's 64-bit key on one session it keeps
 * while the rows' handlers run ({@link AdvisoryLocks}: on the server, or in the process); nothing
 * is written to hold the rows. The attempts of a claim's rows are counted in one batch. A
 * settlement releases its row's lock, but for an ack: the row stays locked, and the acks of a
 * claim's rows are written in one batch when its last delivery is done (an ack in a delivery
 * transaction has committed with it), after which the session gives up all its locks ({@link
 * Session}). Where the locks are the process's and the database takes one writer at a time
 * (SQLite), the acks instead wait, rows still locked, for the next claim, whose count of attempts
 * commits them ({@link ParkedAcks}). A crashed process's locks end with its session.
 */
public final class AdvisoryForm {
    /** How many times a claim whose locked candidates were all gone reads candidates again. */
    static final int TAKE_ROUNDS = 4;

    private final FormContext context;
    private final Dialect dialect;
    private final AdvisoryLocks locks;
    private final AdvisorySql sql;
    private final ClaimedRows claimed;
    /** Where the acks of claims done wait for the next claim to write them (SQLite); else null. */
    private final ParkedAcks parked;
    private final Sessions sessions = new Sessions();

    private AdvisoryForm(FormContext context, AdvisoryStatements statements, String lockScope) {
        this.context = context;
        this.dialect = context.dialect();
        this.locks = statements.lockCandidates() != null
                ? new ServerLocks(dialect, context.table(), statements, context.connections())
                : new ProcessLocks(dialect, context.table(), lockScope, statements, context.connections());
        this.sql = AdvisorySql.of(context, statements);
        this.claimed = context.rows();
        this.parked = locks instanceof ProcessLocks processLocks && dialect.capabilities().writeLocksDatabase()
                && sql.count() != null && !context.transactional()
                ? new ParkedAcks(context, context.acks(sql.ack(), sql.ackRows(), sql.ackAll(),
                        row -> lost(row, "ack"), false), processLocks)
                : null;
    }

    /**
     * Opens the advisory lock form of {@code context}'s subscription.
     *
     * @param lockScope names the database, so in-process locks of two databases never meet
     */
    public static FormPlan open(FormContext context, AdvisoryStatements statements, String lockScope) {
        AdvisoryForm form = new AdvisoryForm(context, statements, lockScope);
        FormContext.Workload work = context.workload();
        Claimer claimer = form.parked == null ? form::claim
                : new CarryingClaimer<>(form.parked.carry(), (now, limit) -> form.claimInOneCommit(null, now, limit),
                        form::claimInOneCommit);
        // In a server the lock session must end in the task that opened it: the worker claims and works its
        // rows. Where a claim writes the acks parked, a lone worker claims as a plain loop would.
        Dispatch dispatch = Dispatch.of(work, work.batchSize(), context.transactions().boundToThread(),
                form.parked != null && work.batchSize() > 1);
        // A lock session per claim, a transactional delivery's own transaction beside its session, and the
        // writer of acks no claim took.
        int sessions = work.workers() + 1;
        int beside = sessions + (context.transactional() ? work.workers() : 0) + (form.parked != null ? 1 : 0);
        // A session whose delivery is transactional holds its connection while it waits for the delivery's.
        return new FormPlan(claimer, work.batchSize(), sessions, dispatch,
                form.parked == null ? Carry.none() : form.parked.carry(), List.<Service>of(form.sessions),
                new FormPlan.Connections(0, beside, context.transactional() ? sessions : 0),
                form.sql.prepared(form.locks));
    }

    FormContext context() {
        return context;
    }

    AdvisorySql sql() {
        return sql;
    }

    AdvisoryLocks locks() {
        return locks;
    }

    ParkedAcks parked() {
        return parked;
    }

    Sessions sessions() {
        return sessions;
    }

    /** Claims on a session of its own: locks and takes the rows, then counts their attempts. */
    private List<InFlight> claim(Instant now, int limit) throws SQLException {
        return onSession(session -> {
            List<InFlight> rows = lockAndTake(session, now, limit);
            if (sql.count() != null && !rows.isEmpty()) {
                // One statement commits alone: no transaction around it.
                context.connections().write(() -> JdbcTransaction.inOneCommit(session.connection(), dialect,
                        sql.count().statements(rows.size()), () -> count(session.connection(), rows)));
            }
            return rows;
        });
    }

    /**
     * Where acks are parked (SQLite): one transaction, the writers' turn taken at its start, writes
     * the acks {@code carried} (where any wait), then locks and reads the claim's rows and counts
     * their attempts: one commit (and one sync) for all, where reads and writes of their own took
     * three. The acks are reported once it commits; a claim that fails leaves them to commit and is
     * thrown after.
     */
    private List<InFlight> claimInOneCommit(AckBatch carried, Instant now, int limit) throws SQLException {
        return onSession(session -> context.connections().write(() -> {
            JdbcTransaction.Work<List<InFlight>> claim = () -> {
                List<InFlight> rows = lockAndTake(session, now, limit);
                count(session.connection(), rows);
                return rows;
            };
            return carried == null ? JdbcTransaction.run(session.connection(), dialect, -1, claim)
                    : carried.writeThen(session.connection(), claim, parked.carry().reports());
        }));
    }

    /** A claim's work on a session of its own. */
    @FunctionalInterface
    private interface OnSession {
        List<InFlight> claim(Session session) throws SQLException;
    }

    /** Runs {@code work} on a new session: kept while it holds rows, given back when it took none. */
    private List<InFlight> onSession(OnSession work) throws SQLException {
        Session session = new Session(this, context.connections().open());
        try {
            List<InFlight> rows = work.claim(session);
            if (rows.isEmpty()) {
                session.close();
            } else {
                sessions.add(session);
            }
            return rows;
        } catch (SQLException | RuntimeException e) {
            session.abandon();
            throw e;
        }
    }

    /** Locks due rows, up to {@code limit}, and reads each again under its lock. */
    private List<InFlight> lockAndTake(Session session, Instant now, int limit) throws SQLException {
        List<InFlight> rows = new ArrayList<>();
        // A candidate read just before its settlement committed elsewhere (often this process's
        // own ack, releasing its lock as the next claim runs) is gone when taken; a claim whose
        // candidates were all gone looks again at once rather than leave due rows to the poll.
        for (int round = 0; round < TAKE_ROUNDS && rows.isEmpty(); round++) {
            int heldHere = sessions.held() + (parked == null ? 0 : parked.held());
            Map<Object, String> due = locks.lockDue(session.connection(), now, limit, heldHere);
            if (due.isEmpty()) {
                break;
            }
            takeEach(session, due, now, rows);
        }
        return rows;
    }

    /** Takes each locked candidate still due into {@code rows}; unlocks those settled since they were read. */
    private void takeEach(Session session, Map<Object, String> due, Instant now, List<InFlight> rows)
            throws SQLException {
        // Locked from here on: if anything fails, the session releases them as it closes.
        session.heldAside().addAll(due.values());
        if (sql.takeRows() != null && due.size() > 1) {
            List<InFlight> found = sql.takeRows().query(context.connections(), session.connection(),
                    due.keySet().toArray(), dialect, (take, ps) -> take.setTime(ps, "now", dialect.stored(now), dialect),
                    rs -> claimed.read(rs, null, session));
            Map<Object, InFlight> byId = new HashMap<>();
            found.forEach(row -> byId.put(row.id(), row));
            for (Map.Entry<Object, String> candidate : due.entrySet()) {
                taken(session, candidate.getValue(), byId.get(candidate.getKey()), rows);
            }
            return;
        }
        // One statement for the claim's rows: preparing it for each was a quarter of SQLite's claim.
        Sql take = sql.take();
        context.connections().prepared(session.connection(), take, ps -> {
            take.setTime(ps, "now", dialect.stored(now), dialect);
            for (Map.Entry<Object, String> candidate : due.entrySet()) {
                taken(session, candidate.getValue(), takeLocked(ps, session, candidate.getKey()), rows);
            }
            return null;
        });
    }

    /** A candidate locked under {@code key}, read again: {@code row} joins the claim; null, it is no longer due. */
    private void taken(Session session, String key, InFlight row, List<InFlight> rows) throws SQLException {
        session.heldAside().remove(key);
        if (row == null) {
            locks.unlock(session.connection(), key); // settled by another session since it was read
            return;
        }
        session.took(row, key);
        rows.add(row);
    }

    /** Reads the row again under its lock; null when it is no longer due. */
    private InFlight takeLocked(PreparedStatement ps, Session session, Object id) throws SQLException {
        Sql take = sql.take();
        take.set(ps, "id", id);
        try (ResultSet rs = ps.executeQuery()) {
            List<InFlight> rows = claimed.read(rs, null, session);
            return rows.isEmpty() ? null : rows.get(0);
        }
    }

    /** Counts the attempts of {@code rows} while their locks are held. */
    private Void count(Connection connection, List<InFlight> rows) throws SQLException {
        if (sql.count() != null) {
            sql.count().run(context.connections(), connection, rows, dialect, (count, ps) -> { });
        }
        return null;
    }

    InboxException lost(InFlight delivery, String settlement) {
        return new InboxException(InboxException.Kind.LEASE_LOST, "queue " + context.queue() + ": row "
                + delivery.id() + " of table " + context.table() + " was no longer there to settle (another claim"
                + " settled it), so its " + settlement + " did not take effect");
    }

    InboxException released(InFlight delivery) {
        return new InboxException(InboxException.Kind.CLOSED, "queue " + context.queue() + ": the lock on row "
                + delivery.id() + " of table " + context.table() + " was released at shutdown, so its settlement did"
                + " not take effect; the row is back in the queue");
    }
}
