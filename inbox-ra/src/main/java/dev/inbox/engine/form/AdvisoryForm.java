package dev.inbox.engine.form;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.engine.InFlight;
import dev.inbox.engine.Sql;
import dev.inbox.spi.AdvisoryStatements;
import dev.inbox.spi.Dialect;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The advisory lock form. A claim takes a lock on each row's 64-bit key (PostgreSQL
 * {@code pg_try_advisory_lock}, MySQL {@code GET_LOCK}, SQLite in the process) on one session it
 * keeps while the rows' handlers run; nothing is written to hold the rows. The attempts of a
 * claim's rows are counted in one batch. A settlement releases its row's lock, but for an ack
 * outside a delivery transaction: the row stays locked, and the acks of a claim's rows are written
 * in one batch when its last delivery is done, after which the session gives up all its locks (a
 * crash before then brings those rows back, as it does rows in work). A crashed process's locks end
 * with its session. Shutdown writes the acks put off and releases the locks of deliveries in work:
 * their settlements then fail with {@code CLOSED} and their rows are back.
 */
public final class AdvisoryForm implements Form {
    private static final System.Logger LOG = System.getLogger(AdvisoryForm.class.getName());
    /** Rows a claim may read past: those whose locks others hold (rows in work stay due in this form). */
    private static final int SCAN_EXTRA = 256;

    private final String queue;
    private final InboxSpec spec;
    private final Dialect dialect;
    private final String lockScope;
    private final Sql candidates;
    private final Sql lockCandidates;
    private final Sql take;
    private final Sql count;
    private final Sql unlock;
    private final Sql unlockAll;
    private final Sql ack;
    private final Sql retry;
    private final Sql drop;
    private final Sql deadLetter;
    private final ClaimedRows claimed;
    private final Set<Session> sessions = ConcurrentHashMap.newKeySet();

    /**
     * @param lockScope names the database, so in-process locks of two databases never meet
     */
    public AdvisoryForm(String queue, InboxSpec spec, Dialect dialect, AdvisoryStatements statements, String deadLetter,
            boolean binaryPayload, ObjectMapper json, String lockScope) {
        this.queue = queue;
        this.spec = spec;
        this.dialect = dialect;
        this.lockScope = lockScope;
        this.candidates = new Sql("advisory candidates", statements.candidates());
        this.lockCandidates = optional("advisory lock candidates", statements.lockCandidates());
        this.take = new Sql("advisory take", statements.take());
        this.count = optional("advisory count", statements.count());
        this.unlock = optional("advisory unlock", statements.unlock());
        this.unlockAll = optional("advisory unlock all", statements.unlockAll());
        this.ack = new Sql("ack", statements.ack());
        this.retry = optional("retry", statements.retry());
        this.drop = new Sql("drop", statements.drop());
        this.deadLetter = optional("dead letter", deadLetter);
        this.claimed = new ClaimedRows(queue, spec.table(), binaryPayload, json);
    }

    private static Sql optional(String name, String sql) {
        return sql == null ? null : new Sql(name, sql);
    }

    /**
     * The session of one claim: its connection, the keys it holds for deliveries not yet settled,
     * and those of deliveries acked whose rows it deletes when the last is done.
     */
    private static final class Session {
        final Connection connection;
        final Map<InFlight, String> keys = new LinkedHashMap<>();
        final Map<InFlight, String> acked = new LinkedHashMap<>();
        Instant lastAck;
        boolean acksWritten;
        boolean closed;

        Session(Connection connection) {
            this.connection = connection;
        }
    }

    @Override
    public List<Sql> statements() {
        List<Sql> all = new ArrayList<>();
        for (Sql sql : new Sql[] {candidates, lockCandidates, take, count, unlock, unlockAll, ack, retry, drop, deadLetter}) {
            if (sql != null) {
                all.add(sql);
            }
        }
        return all;
    }

    @Override
    public List<InFlight> claim(ConnectionSource connections, Instant now, int limit) throws SQLException {
        Connection connection = connections.open();
        Session session = new Session(connection);
        try {
            Map<Object, String> locked = lockCandidates != null ? lockedOnServer(connection, now, limit)
                    : lockedInProcess(connection, now, limit);
            List<InFlight> rows = new ArrayList<>();
            for (Map.Entry<Object, String> candidate : locked.entrySet()) {
                String key = candidate.getValue();
                InFlight row = takeLocked(connection, candidate.getKey(), now);
                if (row == null) {
                    unlock(connection, key); // settled by another session since the candidates were read
                    continue;
                }
                row.hold(session);
                session.keys.put(row, key);
                rows.add(row);
            }
            countAttempts(connection, rows);
            if (rows.isEmpty()) {
                close(session);
            } else {
                sessions.add(session);
            }
            return rows;
        } catch (SQLException | RuntimeException e) {
            close(session);
            throw e;
        }
    }

    /** One statement locks up to {@code limit} due rows on the session, passing over others' locks. */
    private Map<Object, String> lockedOnServer(Connection connection, Instant now, int limit) throws SQLException {
        Map<Object, String> locked = new LinkedHashMap<>();
        String prefix = spec.table() + ":";
        try (PreparedStatement ps = lockCandidates.prepare(connection)) {
            lockCandidates.setTime(ps, "now", dialect.stored(now), dialect);
            lockCandidates.setString(ps, "prefix", prefix);
            lockCandidates.setInt(ps, "scan", limit + SCAN_EXTRA);
            lockCandidates.setInt(ps, "limit", limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    locked.put(rs.getObject(1), prefix + rs.getString(2));
                }
            }
        }
        return locked;
    }

    /** Reads candidates and takes the first free ones among the locks this process keeps. */
    private Map<Object, String> lockedInProcess(Connection connection, Instant now, int limit) throws SQLException {
        Map<Object, String> locked = new LinkedHashMap<>();
        try (PreparedStatement ps = candidates.prepare(connection)) {
            candidates.setTime(ps, "now", dialect.stored(now), dialect);
            candidates.setInt(ps, "limit", limit + SCAN_EXTRA);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next() && locked.size() < limit) {
                    String key = spec.table() + ":" + rs.getString(2);
                    if (InProcessLocks.tryLock(lockScope + "|" + key)) {
                        locked.put(rs.getObject(1), key);
                    }
                }
            }
        }
        return locked;
    }

    /** Reads the row again under its lock; null when it is no longer due. */
    private InFlight takeLocked(Connection connection, Object id, Instant now) throws SQLException {
        List<InFlight> rows;
        try (PreparedStatement ps = take.prepare(connection)) {
            take.set(ps, "id", id);
            take.setTime(ps, "now", dialect.stored(now), dialect);
            try (ResultSet rs = ps.executeQuery()) {
                rows = claimed.read(rs, null);
            }
        }
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** Counts the attempt of each row taken, in one batch, while their locks are held. */
    private void countAttempts(Connection connection, List<InFlight> rows) throws SQLException {
        if (count == null || rows.isEmpty()) {
            return;
        }
        Transactions.inOneCommit(connection, dialect, rows.size(), () -> {
            try (PreparedStatement ps = count.prepare(connection)) {
                for (InFlight row : rows) {
                    count.set(ps, "id", row.id());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    private void unlock(Connection connection, String key) throws SQLException {
        if (unlock == null) {
            InProcessLocks.unlock(lockScope + "|" + key);
            return;
        }
        try (PreparedStatement ps = unlock.prepare(connection)) {
            unlock.setString(ps, "key", key);
            ps.executeQuery().close();
        }
    }

    @Override
    public void settle(ConnectionSource connections, InFlight delivery, Outcome outcome, Instant now)
            throws SQLException {
        Sql sql = Settlements.of(outcome, ack, retry, drop);
        if (sql == null) {
            underLock(delivery, session -> 1);
            return;
        }
        if (outcome.kind() == Outcome.Kind.ACK && !connections.lendsTransaction()) {
            putOffAck(delivery, now);
            return;
        }
        if (connections.lendsTransaction()) {
            // A transactional ack runs in the delivery's transaction, and the lock must outlive it: released
            // before the commit, another claim could take the row while the delete is still uncommitted.
            Session session = (Session) delivery.hold();
            synchronized (session) {
                String key = heldKey(session, delivery);
                int changed = connections.use(connection -> Settlements.run(connection, sql, delivery, outcome, now,
                        dialect));
                if (changed != 1) {
                    unlock(session, delivery, key);
                    throw lost(delivery, outcome.toString());
                }
            }
            return;
        }
        underLock(delivery, session -> Settlements.run(session, sql, delivery, outcome, now, dialect));
        // underLock has released the lock; a settlement that changed no row found it gone.
    }

    /** Keeps the row locked until the claim's last delivery is done, and then writes the claim's acks. */
    private void putOffAck(InFlight delivery, Instant now) throws SQLException {
        Session session = (Session) delivery.hold();
        synchronized (session) {
            String key = heldKey(session, delivery);
            session.keys.remove(delivery);
            session.acked.put(delivery, key);
            session.lastAck = now;
            if (session.keys.isEmpty()) {
                try {
                    writeAcks(session);
                } finally {
                    closeWhenDone(session);
                }
            }
        }
    }

    /**
     * Deletes (or marks processed) the rows acked on the session, in one batch, while it still
     * holds their locks. A row found gone was settled by a session that ignored the lock.
     */
    private void writeAcks(Session session) throws SQLException {
        if (session.acksWritten || session.acked.isEmpty()) {
            return;
        }
        session.acksWritten = true;
        List<InFlight> rows = new ArrayList<>(session.acked.keySet());
        boolean[] changed = Transactions.inOneCommit(session.connection, dialect, rows.size(),
                () -> Settlements.runBatch(session.connection, ack, rows, Outcome.ack(), session.lastAck, dialect));
        for (int i = 0; i < changed.length; i++) {
            if (!changed[i]) {
                LOG.log(Level.WARNING, "queue {0}: row {1} of table {2} was no longer there to ack; another"
                        + " session settled it without its lock", queue, rows.get(i).id(), spec.table());
            }
        }
    }

    @Override
    public void committed(InFlight delivery) throws SQLException {
        Session session = (Session) delivery.hold();
        synchronized (session) {
            String key = session.keys.get(delivery);
            if (key != null) {
                unlock(session, delivery, key);
            }
        }
    }

    private InboxException lost(InFlight delivery, String settlement) {
        return new InboxException(InboxException.Kind.LEASE_LOST, "queue " + queue + ": row " + delivery.id()
                + " of table " + spec.table() + " was no longer there to settle (another claim settled it), so its "
                + settlement + " did not take effect");
    }

    @Override
    public void deadLetter(ConnectionSource connections, InFlight delivery, String error, Instant now)
            throws SQLException {
        underLock(delivery, connection -> Transactions.run(connection, -1,
                () -> DeadLetters.move(connection, deadLetter, drop, delivery, error, now, dialect)) ? 1 : 0);
    }

    @Override
    public boolean release(ConnectionSource connections, InFlight delivery, boolean started) throws SQLException {
        Session session = (Session) delivery.hold();
        synchronized (session) {
            String key = session.keys.remove(delivery);
            if (key == null) {
                return false;
            }
            try {
                unlock(session.connection, key);
            } finally {
                closeWhenDone(session);
            }
            return true;
        }
    }

    /** A statement run under a delivery's lock; returns the rows it changed. */
    @FunctionalInterface
    private interface LockedWork {
        int run(Connection session) throws SQLException;
    }

    private String heldKey(Session session, InFlight delivery) {
        String key = session.keys.get(delivery);
        if (key == null) {
            throw new InboxException(InboxException.Kind.CLOSED, "queue " + queue + ": the lock on row "
                    + delivery.id() + " of table " + spec.table() + " was released at shutdown, so its settlement"
                    + " did not take effect; the row is back in the queue");
        }
        return key;
    }

    /**
     * Runs a settlement while the delivery's lock is held, then releases the lock; throws
     * {@code LEASE_LOST} when it changed no row (another claim settled the row first).
     */
    private void underLock(InFlight delivery, LockedWork work) throws SQLException {
        Session session = (Session) delivery.hold();
        synchronized (session) {
            String key = heldKey(session, delivery);
            int changed;
            try {
                changed = work.run(session.connection);
            } catch (SQLException | RuntimeException e) {
                // The session ends, and its locks with it: the rows return.
                abandon(session);
                throw e;
            }
            unlock(session, delivery, key);
            if (changed == 0) {
                throw lost(delivery, "settlement");
            }
        }
    }

    /** Releases the delivery's lock; the session goes back to its pool when it holds no more. */
    private void unlock(Session session, InFlight delivery, String key) throws SQLException {
        session.keys.remove(delivery);
        try {
            unlock(session.connection, key);
        } catch (SQLException | RuntimeException e) {
            abandon(session);
            throw e;
        }
        closeWhenDone(session);
    }

    private void abandon(Session session) {
        if (unlockAll == null) {
            session.keys.values().forEach(key -> InProcessLocks.unlock(lockScope + "|" + key));
        }
        session.keys.clear();
        closeWhenDone(session);
    }

    /** Once the session holds no delivery in work: writes its acks (if not yet), and gives it back. */
    private void closeWhenDone(Session session) {
        if (session.keys.isEmpty()) {
            sessions.remove(session);
            try {
                writeAcks(session);
            } catch (SQLException | RuntimeException e) {
                LOG.log(Level.WARNING, "queue {0}: the acks of {1} rows of table {2} did not take effect, so those"
                        + " rows return: {3}", queue, session.acked.size(), spec.table(), e.getMessage());
            }
            close(session);
        }
    }

    /** Gives the session back to its pool with no lock left on it. */
    private void close(Session session) {
        if (session.closed) {
            return; // its in-process locks may be another session's by now
        }
        session.closed = true;
        try (Connection connection = session.connection) {
            if (unlockAll != null) {
                try (PreparedStatement ps = unlockAll.prepare(connection)) {
                    ps.executeQuery().close();
                }
            } else {
                session.keys.values().forEach(key -> InProcessLocks.unlock(lockScope + "|" + key));
                session.acked.values().forEach(key -> InProcessLocks.unlock(lockScope + "|" + key));
            }
        } catch (SQLException e) {
            LOG.log(Level.DEBUG, "closing an advisory lock session failed; the pool discards it", e);
        }
    }

    /**
     * Shutdown: releases the lock of every delivery in work; their settlements then fail with
     * {@code CLOSED} and their rows are back in the queue. Returns the locks released.
     */
    @Override
    public boolean claimsHoldConnections() {
        return true;
    }

    @Override
    public int releaseLocks() {
        int released = 0;
        for (Session session : sessions) {
            synchronized (session) {
                for (String key : session.keys.values()) {
                    try {
                        unlock(session.connection, key);
                        released++;
                    } catch (SQLException e) {
                        LOG.log(Level.WARNING, "queue {0}: releasing the lock {1} failed; it ends with its session: {2}",
                                queue, key, e.getMessage());
                    }
                }
                session.keys.clear();
                closeWhenDone(session);
            }
        }
        return released;
    }
}
