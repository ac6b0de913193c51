package dev.inbox.internal.form;

import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.internal.jdbc.Transactions;
import dev.inbox.spi.AdvisoryStatements;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The advisory lock form. A claim takes a lock on each row's 64-bit key on one session it keeps
 * while the rows' handlers run ({@link AdvisoryLocks}: on the server, or in the process); nothing
 * is written to hold the rows. The attempts of a claim's rows are counted in one batch. A
 * settlement releases its row's lock, but for an ack: the row stays locked, and the acks of a
 * claim's rows are written in one batch when its last delivery is done (an ack in a delivery
 * transaction has committed with it), after which the session gives up all its locks (a crash
 * before then brings those rows back, as it does rows in work). Where the locks are the
 * process's and the database takes one writer at a time (SQLite), the acks instead wait, rows
 * still locked, for the next claim, whose count of attempts commits them ({@link ParkedAcks}). A
 * crashed process's locks end with its session.
 * Shutdown writes the acks put off and releases the locks of deliveries in work: their
 * settlements then fail with {@code CLOSED} and their rows are back.
 */
public final class AdvisoryForm implements Form {
    private static final System.Logger LOG = System.getLogger(AdvisoryForm.class.getName());

    private final FormContext context;
    private final AtomicInteger sessionsClosed = new AtomicInteger();
    private final InboxSpec spec;
    private final Dialect dialect;
    private final AdvisoryLocks locks;
    private final Sql take;
    private final Sql count;
    /** The take of a list of candidates in one query, where the dialect writes it; else null. */
    private final ForRows takeRows;
    /** The attempts of a list of rows counted in one statement, where the dialect writes it; else null. */
    private final ForRows countRows;
    /** The acks of a list of rows in one statement, where the dialect writes it; else null. */
    private final ForRows ackRows;
    /** The acks of many rows that return their ids, where the dialect writes them; else null. */
    private final Sql ackAll;
    private final Sql ack;
    private final Sql retry;
    private final Sql drop;
    private final Sql deadLetter;
    private final ClaimedRows claimed;
    /**
     * Where the database takes one writer at a time and the locks are this process's (SQLite): the
     * acks of claims done, written by the next claim with its count of attempts; else null.
     */
    private final ParkedAcks parked;
    private final Set<Session> sessions = ConcurrentHashMap.newKeySet();

    /** @param lockScope names the database, so in-process locks of two databases never meet */
    public AdvisoryForm(FormContext context, AdvisoryStatements statements, String lockScope) {
        this.context = context;
        this.spec = context.spec();
        this.dialect = context.dialect();
        this.locks = statements.lockCandidates() != null
                ? new ServerLocks(dialect, spec.table(), statements, context.connections())
                : new ProcessLocks(dialect, spec.table(), lockScope, statements, context.connections());
        this.take = new Sql("advisory take", statements.take());
        this.takeRows = context.rows(take, statements.takeRows());
        this.count = statements.count() == null ? null : new Sql("advisory count", statements.count());
        this.countRows = context.rows(count, statements.countRows());
        this.ack = new Sql("ack", statements.ack());
        this.ackRows = context.rows(ack, statements.ackRows());
        this.ackAll = FormContext.ackAll(statements.ackAll());
        this.retry = statements.retry() == null ? null : new Sql("retry", statements.retry());
        this.drop = new Sql("drop", statements.drop());
        this.deadLetter = context.deadLetterSql();
        this.claimed = context.rows();
        this.parked = locks instanceof ProcessLocks processLocks && dialect.capabilities().writeLocksDatabase() && count != null
                && !context.transactional()
                ? new ParkedAcks(context, context.acks(ack, ackRows, ackAll, d -> lost(d, "ack"), false), processLocks,
                        PARKED_ROOM)
                : null;
    }

    /** How many acks may wait for a claim to write them before a worker writes them itself. */
    static final int PARKED_ROOM = 256;

    /** How many times a claim whose locked candidates were all gone reads candidates again. */
    static final int TAKE_ROUNDS = 4;

    @Override
    public List<Sql> statements() {
        List<Sql> all = new ArrayList<>(locks.statements());
        for (Sql sql : new Sql[] {take, count, ack, retry, drop, deadLetter}) {
            if (sql != null) {
                all.add(sql);
            }
        }
        return all;
    }

    /** In a server, the lock session must end in the task that opened it: the worker claims and works its rows. */
    @Override
    public boolean claimsOnWorker() {
        return context.transactions().boundToThread();
    }

    /** Where its claim writes the acks of the rows it worked (parked), as a plain loop's would. */
    @Override
    public boolean loneWorkerClaimsWhenDry(int batch) {
        return parked != null && batch > 1;
    }

    @Override
    public int rowsPerClaim(int batchSize) {
        return batchSize;
    }

    @Override
    public int claimsAtOnce(int workers, int rows) {
        return workers + 1; // each keeps its lock session until its rows settle
    }

    @Override
    public int connections(int workers, int claimLoops) {
        // A lock session per claim, a transactional delivery's own transaction beside its session,
        // and the writer of acks no claim took.
        return workers + 1 + (context.transactional() ? workers : 0) + (parked != null ? 1 : 0);
    }

    @Override
    public void start(Threads threads, String name, Collection<InFlight> inWork) {
        if (parked != null) {
            parked.start(threads, name + "-acks");
        }
    }

    @Override
    public void quiet() {
        if (parked != null) {
            parked.writeUncarried();
        }
    }

    @Override
    public boolean close(Duration wait) throws InterruptedException {
        return parked == null || parked.close(wait);
    }

    @Override
    public List<InFlight> claim(Instant now, int limit) throws SQLException {
        Session session = new Session(context.connections().open());
        try {
            List<InFlight> rows;
            if (parked != null) {
                rows = claimInOneCommit(session, now, limit);
            } else {
                rows = lockAndTake(session, now, limit);
                countAttempts(session.connection, rows);
            }
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
            Map<Object, String> due = locks.lockDue(session.connection, now, limit, heldHere());
            if (due.isEmpty()) {
                break;
            }
            takeEach(session, due, now, rows);
        }
        return rows;
    }

    /**
     * The locks this form's sessions hold, read without their monitors: a hint of how far past the
     * rows held here a claim's scan must read.
     */
    private int heldHere() {
        int held = parked == null ? 0 : parked.held();
        for (Session session : sessions) {
            held += session.keys.size() + session.heldAside.size();
        }
        return held;
    }

    /** Takes each locked candidate still due into {@code rows}; unlocks those settled since they were read. */
    private void takeEach(Session session, Map<Object, String> due, Instant now, List<InFlight> rows)
            throws SQLException {
        // Locked from here on: if anything fails, the session releases them as it closes.
        session.heldAside.addAll(due.values());
        if (takeRows != null && due.size() > 1) {
            List<InFlight> found = takeRows.query(context.connections(), session.connection, due.keySet().toArray(),
                    dialect, (sql, ps) -> sql.setTime(ps, "now", dialect.stored(now), dialect),
                    rs -> claimed.read(rs, null, session));
            Map<Object, InFlight> byId = new HashMap<>();
            found.forEach(row -> byId.put(row.id(), row));
            for (Map.Entry<Object, String> candidate : due.entrySet()) {
                taken(session, candidate.getValue(), byId.get(candidate.getKey()), rows);
            }
            return;
        }
        // One statement for the claim's rows: preparing it for each was a quarter of SQLite's claim.
        context.connections().prepared(session.connection, take, ps -> {
            take.setTime(ps, "now", dialect.stored(now), dialect);
            for (Map.Entry<Object, String> candidate : due.entrySet()) {
                taken(session, candidate.getValue(), takeLocked(ps, session, candidate.getKey()), rows);
            }
            return null;
        });
    }

    /** A candidate locked under {@code key}, read again: {@code row} joins the claim; null, it is no longer due. */
    private void taken(Session session, String key, InFlight row, List<InFlight> rows) throws SQLException {
        session.heldAside.remove(key);
        if (row == null) {
            locks.unlock(session.connection, key); // settled by another session since it was read
            return;
        }
        session.keys.put(row, key);
        rows.add(row);
    }

    /** Reads the row again under its lock; null when it is no longer due. */
    private InFlight takeLocked(PreparedStatement ps, Session session, Object id) throws SQLException {
        take.set(ps, "id", id);
        try (ResultSet rs = ps.executeQuery()) {
            List<InFlight> rows = claimed.read(rs, null, session);
            return rows.isEmpty() ? null : rows.get(0);
        }
    }

    /** Counts the attempt of each row taken, in one batch, while their locks are held. */
    private void countAttempts(Connection connection, List<InFlight> rows) throws SQLException {
        if (count == null || rows.isEmpty()) {
            return;
        }
        // One statement commits alone: no transaction around it.
        context.connections().write(() -> Transactions.inOneCommit(connection, dialect,
                rows.size() > 1 && countRows != null ? 1 : rows.size(), () -> count(connection, rows)));
    }

    /**
     * Where acks are parked (SQLite): one transaction, the writers' turn taken at its start, writes
     * the acks waiting, then locks and reads the claim's rows and counts their attempts; one commit
     * (and one sync) for all, where reads and writes of their own took three. The acks are reported
     * once it commits. A claim that fails leaves the acks to commit and is thrown after; acks that
     * fail are reported so, their rows come back, and the claim fails with them.
     */
    private List<InFlight> claimInOneCommit(Session session, Instant now, int limit) throws SQLException {
        Connection connection = session.connection;
        AckBatch carried = parked.take();
        List<InFlight> rows = new ArrayList<>();
        boolean[] taken = new boolean[1];
        SQLException[] claimFailed = new SQLException[1];
        Transactions.Work<boolean[]> claim = () -> {
            try {
                if (!taken[0]) { // once: a batch of acks run again (one row missed) runs the claim again
                    taken[0] = true;
                    rows.addAll(lockAndTake(session, now, limit));
                }
                if (!rows.isEmpty()) {
                    count(connection, rows);
                }
            } catch (SQLException e) {
                claimFailed[0] = e;
            }
            return null;
        };
        try {
            context.connections().write(() -> {
                if (carried == null) {
                    return Transactions.run(connection, dialect, -1, claim);
                }
                carried.write(connection, (c, statements, batch) -> Transactions.run(c, dialect, -1, () -> {
                    boolean[] took = batch.run();
                    claim.run();
                    return took;
                }), parked.reports());
                return null;
            });
        } catch (SQLException | RuntimeException e) {
            if (carried != null && !carried.isEmpty()) {
                parked.notWritten(carried, e); // the turn to write never came
            }
            if (claimFailed[0] != null) {
                e.addSuppressed(claimFailed[0]);
            }
            throw e;
        }
        if (claimFailed[0] != null) {
            throw claimFailed[0];
        }
        return rows;
    }

    /** Counts the attempts of {@code rows}: one statement for the list where the dialect writes it, else a batch. */
    private Void count(Connection connection, List<InFlight> rows) throws SQLException {
        if (rows.size() > 1 && countRows != null) {
            countRows.run(context.connections(), connection, rows, dialect, (sql, ps) -> { });
            return null;
        }
        return context.connections().prepared(connection, count, ps -> {
            for (InFlight row : rows) {
                count.set(ps, "id", row.id());
                ps.addBatch();
            }
            ps.executeBatch();
            return null;
        });
    }

    private InboxException lost(InFlight delivery, String settlement) {
        return new InboxException(InboxException.Kind.LEASE_LOST, "queue " + context.queue() + ": row "
                + delivery.id() + " of table " + spec.table() + " was no longer there to settle (another claim"
                + " settled it), so its " + settlement + " did not take effect");
    }

    private InboxException released(InFlight delivery) {
        return new InboxException(InboxException.Kind.CLOSED, "queue " + context.queue() + ": the lock on row "
                + delivery.id() + " of table " + spec.table() + " was released at shutdown, so its settlement did"
                + " not take effect; the row is back in the queue");
    }

    /**
     * Shutdown: releases the lock of every delivery in work; their settlements then fail with
     * {@code CLOSED} and their rows are back in the queue. Returns the locks released.
     */
    /** Sessions closed instead of given back, because their locks could not be released otherwise. */
    @Override
    public int connectionsClosed() {
        return sessionsClosed.get();
    }

    @Override
    public int stop() {
        int released = 0;
        for (Session session : sessions) {
            released += session.releaseAll();
        }
        return released;
    }

    /** A settlement statement run under a delivery's lock; returns the rows it changed. */
    @FunctionalInterface
    private interface LockedWork {
        int run(Connection session) throws SQLException;
    }

    /**
     * The session of one claim: its connection, the keys it holds for deliveries not yet settled,
     * and the acks of deliveries whose rows it deletes when the last is done.
     */
    private final class Session implements Claim {
        final Connection connection;
        final Map<InFlight, String> keys = new LinkedHashMap<>();
        /** Keys still locked that no delivery in work holds: acked rows, and keys given up after a failure. */
        final List<String> heldAside = new ArrayList<>();
        /** A row found gone at its ack was settled by a session that ignored the lock. */
        final AckBatch acks = context.acks(ack, ackRows, ackAll, d -> lost(d, "ack"), false);
        boolean closed;

        Session(Connection connection) {
            this.connection = connection;
        }

        @Override
        public void ack(InFlight delivery, Instant now) {
            String key;
            synchronized (this) {
                key = keys.remove(delivery);
                if (key == null) {
                    context.reports().lost(delivery, Outcome.ack(), released(delivery));
                    return;
                }
                if (parked == null) {
                    // Keeps the row locked until the claim's last delivery is done, and then writes the claim's acks.
                    heldAside.add(key);
                    acks.add(delivery, now);
                    closeWhenDone();
                    return;
                }
                closeWhenDone();
            }
            // Outside the session's monitor: a full room writes the acks waiting here.
            parked.park(delivery, key, now);
        }

        @Override
        public void settle(InFlight delivery, Outcome outcome, Instant now) throws SQLException {
            Sql sql = Settlements.of(outcome, ack, retry, drop);
            underLock(delivery, connection -> sql == null ? 1
                    : Settlements.run(connection, sql, delivery, outcome, now, dialect));
        }

        @Override
        public void deadLetter(InFlight delivery, String error, Instant now) throws SQLException {
            underLock(delivery, connection -> Transactions.run(connection, -1,
                    () -> DeadLetters.move(connection, deadLetter, drop, delivery, error, now, dialect)) ? 1 : 0);
        }

        @Override
        public synchronized boolean release(InFlight delivery, boolean started) throws SQLException {
            String key = keys.remove(delivery);
            if (key == null) {
                return false;
            }
            try {
                locks.unlock(connection, key);
            } finally {
                closeWhenDone();
            }
            return true;
        }

        @Override
        public HandlerTransaction begin(InFlight delivery, DeliveryTransactions transactions) throws Exception {
            // The ack runs in the delivery's transaction, and the lock must outlive it: released before the
            // commit, another claim could take the row while the delete is still uncommitted.
            return new OwnTransaction(transactions.begin(spec), (tx, now) -> {
                synchronized (this) {
                    String key = heldKey(delivery);
                    if (Settlements.run(tx, ack, delivery, Outcome.ack(), now, dialect) != 1) {
                        unlock(delivery, key);
                        throw lost(delivery, "ack");
                    }
                }
            }, () -> {
                synchronized (this) {
                    // Committed, the row settled: its lock goes with the session's others once its last
                    // delivery is done, one round trip for them all. Released here one by one, the
                    // deliveries of a claim took turns on its session, a round trip each.
                    String key = keys.remove(delivery);
                    if (key != null) {
                        heldAside.add(key);
                        closeWhenDone();
                    }
                }
            });
        }

        private String heldKey(InFlight delivery) {
            String key = keys.get(delivery);
            if (key == null) {
                throw released(delivery);
            }
            return key;
        }

        /**
         * Runs a settlement while the delivery's lock is held, then releases the lock; throws
         * {@code LEASE_LOST} when it changed no row (another claim settled the row first).
         */
        private synchronized void underLock(InFlight delivery, LockedWork work) throws SQLException {
            String key = heldKey(delivery);
            int changed;
            try {
                changed = context.connections().write(() -> work.run(connection));
            } catch (SQLException | RuntimeException e) {
                // The session ends, and its locks with it: the rows return.
                abandon();
                throw e;
            }
            unlock(delivery, key);
            if (changed == 0) {
                throw lost(delivery, "settlement");
            }
        }

        /** Releases the delivery's lock; the session goes back to its pool when it holds no more. */
        private void unlock(InFlight delivery, String key) throws SQLException {
            keys.remove(delivery);
            try {
                locks.unlock(connection, key);
            } catch (SQLException | RuntimeException e) {
                abandon();
                throw e;
            }
            closeWhenDone();
        }

        /** Shutdown: releases the locks of deliveries in work; returns how many. */
        synchronized int releaseAll() {
            int released = 0;
            for (String key : keys.values()) {
                try {
                    locks.unlock(connection, key);
                    released++;
                } catch (SQLException e) {
                    LOG.log(Level.WARNING, "queue {0}: releasing the lock {1} failed; it ends with its session: {2}",
                            context.queue(), key, e.getMessage());
                    heldAside.add(key);
                }
            }
            keys.clear();
            closeWhenDone();
            return released;
        }

        /** After a failure: the session's deliveries in work lose their locks, and it goes back to its pool. */
        synchronized void abandon() {
            heldAside.addAll(keys.values());
            keys.clear();
            closeWhenDone();
        }

        /** Once the session holds no delivery in work: writes its acks, and gives it back. */
        private void closeWhenDone() {
            if (!keys.isEmpty()) {
                return;
            }
            try {
                acks.write(connection, (c, statements, batch) -> context.connections().write(
                        () -> Transactions.inOneCommit(c, dialect, statements, batch)), context.reports());
            } catch (SQLException | RuntimeException e) {
                LOG.log(Level.WARNING, "queue {0}: the acks of rows of table {1} did not take effect, so those"
                        + " rows return: {2}", context.queue(), spec.table(), e.getMessage());
            }
            close();
            // Counted among the sessions until its locks are gone: a claim's scan reads past them (heldHere).
            sessions.remove(this);
        }

        /**
         * Gives the session back to its pool with no lock left on it; where its locks cannot be
         * released, closes it instead (aborts it, so no pool keeps it), and its locks end with it.
         */
        synchronized void close() {
            if (closed) {
                return; // its in-process locks may be another session's by now
            }
            closed = true;
            try {
                locks.unlockAll(connection, heldAside);
            } catch (SQLException e) {
                LOG.log(Level.DEBUG, "releasing the locks of an advisory lock session failed; the session is closed", e);
                try {
                    connection.abort(Runnable::run);
                } catch (SQLException | RuntimeException abort) {
                    LOG.log(Level.DEBUG, "aborting the session failed", abort);
                }
                sessionsClosed.incrementAndGet();
                return;
            }
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.log(Level.DEBUG, "giving an advisory lock session back failed", e);
            }
        }
    }
}
