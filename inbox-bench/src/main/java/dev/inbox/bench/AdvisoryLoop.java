package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.InboxSpec;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.AdvisoryStatements;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The advisory lock form by hand. A claim locks rows' keys on the thread's session (one statement
 * on PostgreSQL and MySQL; on SQLite candidates are read and locked in the process, in a set the
 * threads share), reads each row again under its lock, and counts the attempts in one batch. The
 * acks follow as one batch with one commit, and then the session's locks are all released, as the
 * engine does when the session goes back to its pool. Transactional: each row's effect and ack
 * commit together on a second connection, and only then is its lock released.
 */
final class AdvisoryLoop implements BaselineLoop {
    /** As the engine's claim: rows it may read past, whose locks others hold. */
    private static final int SCAN_EXTRA = 256;

    private final Connection session;
    private final Connection transaction;
    private final Dialect dialect;
    private final String prefix;
    private final int batch;
    private final Set<String> inProcessLocks;
    private final Sql candidates;
    private final Sql lockCandidates;
    private final Sql take;
    private final Sql count;
    private final Sql unlock;
    private final Sql unlockAll;
    private final Sql ack;
    /** The acks of a claim in one statement, in autocommit; null for a batch of {@code ack}. */
    private final Sql ackAll;
    private final PreparedStatement candidatesPs;
    private final PreparedStatement takePs;
    private final PreparedStatement countPs;
    private final PreparedStatement unlockPs;
    private final PreparedStatement unlockAllPs;
    private final PreparedStatement ackPs;
    private final PreparedStatement effectPs;
    /** The attempts counted, and the acks, as one statement for their rows where the dialect writes one. */
    private final RowList countRows;
    private final RowList takeRows;
    private final RowList ackRows;

    AdvisoryLoop(BenchDatabase db, InboxSpec spec, AdvisoryStatements statements, String ackAll, int batch,
            boolean transactional, Set<String> inProcessLocks) throws SQLException {
        this.dialect = db.dialect();
        this.prefix = spec.table() + ":";
        this.batch = batch;
        this.inProcessLocks = inProcessLocks;
        this.lockCandidates = statements.lockCandidates() == null ? null
                : new Sql("lock candidates", statements.lockCandidates());
        this.candidates = new Sql("candidates", statements.candidates());
        this.take = new Sql("take", statements.take());
        this.count = statements.count() == null ? null : new Sql("count", statements.count());
        this.unlock = statements.unlock() == null ? null : new Sql("unlock", statements.unlock());
        this.unlockAll = statements.unlockAll() == null ? null : new Sql("unlock all", statements.unlockAll());
        this.ack = new Sql("ack", statements.ack());
        this.session = db.connect();
        this.transaction = transactional ? db.connect() : null;
        if (transactional) {
            dialect.begin(transaction, spec);
        }
        this.candidatesPs = (lockCandidates != null ? lockCandidates : candidates).prepare(session);
        this.takePs = take.prepare(session);
        this.countPs = count == null ? null : count.prepare(session);
        this.unlockPs = unlock == null ? null : unlock.prepare(session);
        this.unlockAllPs = unlockAll == null ? null : unlockAll.prepare(session);
        this.ackAll = ackAll == null ? null : new Sql("ack all", ackAll);
        this.ackPs = (this.ackAll != null ? this.ackAll : ack).prepare(transactional ? transaction : session);
        this.effectPs = transactional ? transaction.prepareStatement(BenchDatabase.EFFECT_INSERT) : null;
        TableShape shape = db.shape(ClaimForm.ADVISORY);
        this.countRows = count == null ? null : RowList.of(dialect, statements.countRows(), count, session);
        this.takeRows = RowList.of(dialect, statements.takeRows(), take, session);
        this.ackRows = transactional || this.ackAll != null ? null : RowList.of(dialect, statements.ackRows(), ack, session);
    }

    @Override
    public int round() throws SQLException {
        Instant now = dialect.stored(Instant.now());
        Map<Object, String> locked = lockCandidates != null ? lockedOnServer(now) : lockedInProcess(now);
        List<Object> taken = new ArrayList<>();
        Map<Object, String> keys = new LinkedHashMap<>();
        Set<Object> found = takeRows != null && locked.size() > 1
                ? new HashSet<>(takeRows.query(new ArrayList<>(locked.keySet()), now)) : null;
        for (Map.Entry<Object, String> candidate : locked.entrySet()) {
            Object id = candidate.getKey();
            if (found != null ? found.contains(id) : takeLocked(id, now)) {
                taken.add(id);
                keys.put(id, candidate.getValue());
            } else {
                unlock(candidate.getValue()); // settled by another session since the candidates were read
            }
        }
        if (countRows != null && taken.size() > 1) {
            countRows.run(taken, null, null); // one statement commits alone
        } else {
            batch(countPs, count, taken);
        }
        if (transaction == null) {
            if (ackAll != null && !taken.isEmpty()) {
                BaselineLoop.ackAllInOne(ackPs, ackAll, taken, null, dialect);
            } else if (ackRows != null && taken.size() > 1) {
                // In a transaction, as the engine's: there a statement that changed fewer rows rolls back.
                session.setAutoCommit(false);
                ackRows.run(taken, null, null);
                session.commit();
                session.setAutoCommit(true);
            } else {
                batch(ackPs, ack, taken);
            }
            keys.values().forEach(this::unlockInProcess);
        } else {
            for (Object id : taken) {
                effectPs.setObject(1, id);
                effectPs.executeUpdate();
                ack.set(ackPs, "id", id);
                if (ackPs.executeUpdate() != 1) {
                    throw new IllegalStateException("the ack of row " + id + " changed no row");
                }
                transaction.commit();
                unlock(keys.get(id));
            }
        }
        if (unlockAllPs != null && !locked.isEmpty()) {
            unlockAllPs.executeQuery().close();
        }
        return taken.size();
    }

    private Map<Object, String> lockedOnServer(Instant now) throws SQLException {
        Map<Object, String> locked = new LinkedHashMap<>();
        lockCandidates.setTime(candidatesPs, "now", now, dialect);
        lockCandidates.setString(candidatesPs, "prefix", prefix);
        lockCandidates.setInt(candidatesPs, "scan", batch + SCAN_EXTRA);
        lockCandidates.setInt(candidatesPs, "limit", batch);
        try (ResultSet rs = candidatesPs.executeQuery()) {
            while (rs.next()) {
                locked.put(rs.getObject(1), prefix + rs.getString(2));
            }
        }
        return locked;
    }

    private Map<Object, String> lockedInProcess(Instant now) throws SQLException {
        Map<Object, String> locked = new LinkedHashMap<>();
        candidates.setTime(candidatesPs, "now", now, dialect);
        candidates.setInt(candidatesPs, "limit", batch + SCAN_EXTRA);
        try (ResultSet rs = candidatesPs.executeQuery()) {
            while (rs.next() && locked.size() < batch) {
                String key = prefix + rs.getString(2);
                if (inProcessLocks.add(key)) {
                    locked.put(rs.getObject(1), key);
                }
            }
        }
        return locked;
    }

    private boolean takeLocked(Object id, Instant now) throws SQLException {
        take.set(takePs, "id", id);
        take.setTime(takePs, "now", now, dialect);
        try (ResultSet rs = takePs.executeQuery()) {
            return !BaselineLoop.ids(rs).isEmpty();
        }
    }

    /** Runs {@code sql} for each id as one batch with one commit, on the session. */
    private void batch(PreparedStatement ps, Sql sql, List<Object> ids) throws SQLException {
        if (ps == null || ids.isEmpty()) {
            return;
        }
        for (Object id : ids) {
            sql.set(ps, "id", id);
            ps.addBatch();
        }
        boolean commitsOnce = ids.size() == 1 || dialect.capabilities().batchCommitsOnce();
        if (!commitsOnce) {
            session.setAutoCommit(false);
        }
        BaselineLoop.executeChangingEach(ps, sql.name());
        if (!commitsOnce) {
            session.commit();
            session.setAutoCommit(true);
        }
    }

    private void unlockInProcess(String key) {
        if (unlockPs == null) {
            inProcessLocks.remove(key);
        }
    }

    private void unlock(String key) throws SQLException {
        if (unlockPs == null) {
            inProcessLocks.remove(key);
            return;
        }
        unlock.setString(unlockPs, "key", key);
        unlockPs.executeQuery().close();
    }

    @Override
    public void close() throws SQLException {
        try (session) {
            if (transaction != null) {
                transaction.rollback();
                transaction.close();
            }
        }
    }
}
