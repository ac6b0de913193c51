package dev.inbox.internal.form.advisory;

import dev.inbox.Outcome;
import dev.inbox.internal.form.AckBatch;
import dev.inbox.internal.form.Claim;
import dev.inbox.internal.form.DeadLetters;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.HandlerTransaction;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.form.Settlements;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.jdbc.Redaction;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The session of one claim: its connection, the keys it holds for deliveries not yet settled,
 * and the acks of deliveries whose rows it deletes when the last is done.
 */
final class Session implements Claim {
    /** A settlement statement run under a delivery's lock; returns the rows it changed. */
    @FunctionalInterface
    private interface LockedWork {
        int run(Connection session) throws SQLException;
    }

    private static final System.Logger LOG = System.getLogger(Session.class.getName());

    private final AdvisoryForm form;
    private final FormContext context;
    private final AdvisorySql sql;
    private final AdvisoryLocks locks;
    private final Dialect dialect;
    private final Connection connection;
    private final Map<InFlight, String> keys = new LinkedHashMap<>();
    /** Keys still locked that no delivery in work holds: acked rows, and keys given up after a failure. */
    private final List<String> heldAside = new ArrayList<>();
    /** A row found gone at its ack was settled by a session that ignored the lock. */
    private final AckBatch acks;
    private boolean closed;

    Session(AdvisoryForm form, Connection connection) {
        this.form = form;
        this.context = form.context();
        this.sql = form.sql();
        this.locks = form.locks();
        this.dialect = context.dialect();
        this.connection = connection;
        this.acks = context.acks(sql.ack(), sql.ackRows(), sql.ackAll(), d -> form.lost(d, "ack"), false);
    }

    /** The locks it holds: for deliveries in work, and acked rows and keys held aside. */
    int held() {
        return keys.size() + heldAside.size();
    }

    /** Takes {@code row}, locked under {@code key}, into the claim. */
    void took(InFlight row, String key) {
        keys.put(row, key);
    }

    /** Keys locked that no delivery holds yet (candidates being read again): released as the session closes. */
    List<String> heldAside() {
        return heldAside;
    }

    Connection connection() {
        return connection;
    }

    @Override
    public void ack(InFlight delivery, Instant now) {
        String key;
        synchronized (this) {
            key = keys.remove(delivery);
            if (key == null) {
                context.reports().lost(delivery, Outcome.ack(), form.released(delivery));
                return;
            }
            if (form.parked() == null) {
                // Keeps the row locked until the claim's last delivery is done, and then writes the claim's acks.
                heldAside.add(key);
                acks.add(delivery, now);
                closeWhenDone();
                return;
            }
            closeWhenDone();
        }
        // Outside the session's monitor: a full room writes the acks waiting here.
        form.parked().park(delivery, key, now);
    }

    @Override
    public void settle(InFlight delivery, Outcome outcome, Instant now, Duration ifRefused) throws SQLException {
        Sql settles = Settlements.of(outcome, sql.ack(), sql.retry(), sql.drop());
        underLock(delivery, connection -> settles == null ? 1
                : Settlements.run(connection, settles, delivery, outcome, now, dialect), now, ifRefused);
    }

    @Override
    public void deadLetter(InFlight delivery, String error, String lastError, Instant now, Duration ifRefused) throws SQLException {
        underLock(delivery, connection -> JdbcTransaction.run(connection, -1,
                () -> DeadLetters.move(connection, sql.deadLetter(), sql.drop(), delivery, error, lastError, now, dialect)) ? 1 : 0,
                now, ifRefused);
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

    /**
     * The session's connection is never the handler's: a stuck handler's row settles and its lock
     * goes, so the session's other rows (and their parked acks) do not wait for that handler.
     */
    @Override
    public boolean settlesBesideItsHandler() {
        return true;
    }

    @Override
    public HandlerTransaction begin(InFlight delivery, DeliveryTransactions transactions) throws Exception {
        // The ack runs in the delivery's transaction, and the lock must outlive it: released before the
        // commit, another claim could take the row while the delete is still uncommitted.
        return HandlerTransaction.apart(transactions.begin(context.spec()), (tx, now) -> {
            synchronized (this) {
                String key = heldKey(delivery);
                if (Settlements.run(tx, sql.ack(), delivery, Outcome.ack(), now, dialect) != 1) {
                    unlock(delivery, key);
                    throw form.lost(delivery, "ack");
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
            throw form.released(delivery);
        }
        return key;
    }

    /**
     * Runs a settlement while the delivery's lock is held, then releases the lock; throws
     * {@code LEASE_LOST} when it changed no row (another claim settled the row first). A
     * settlement the database refuses fails alone: the row is put off by {@code ifRefused} while
     * still locked, and the session keeps its other deliveries' locks. Only a session whose
     * connection failed ends, and its locks with it.
     */
    private synchronized void underLock(InFlight delivery, LockedWork work, Instant now, Duration ifRefused)
            throws SQLException {
        String key = heldKey(delivery);
        int changed;
        try {
            changed = context.connections().write(() -> work.run(connection));
        } catch (SQLException | RuntimeException e) {
            if (!usable(e)) {
                // The session ends, and its locks with it: the rows return.
                abandon();
                throw e;
            }
            if (e instanceof SQLException refusal) {
                putOff(delivery, now, ifRefused, refusal);
            }
            unlock(delivery, key);
            throw e;
        }
        unlock(delivery, key);
        if (changed == 0) {
            throw form.lost(delivery, "settlement");
        }
    }

    /** Moves a row whose settlement was refused to the end of {@code delay}, keeping a failure with {@code refusal}. */
    private void putOff(InFlight delivery, Instant now, Duration delay, SQLException refusal) {
        try {
            context.connections().write(() -> {
                Settlements.putOff(connection, sql.retry(), delivery, delay, now, dialect);
                return null;
            });
        } catch (SQLException | RuntimeException e) {
            refusal.addSuppressed(e);
        }
    }

    /** True when the session's connection outlived {@code failure}: a statement was refused, not the connection lost. */
    private boolean usable(Exception failure) {
        if (!(failure instanceof SQLException e) || e.getSQLState() != null && e.getSQLState().startsWith("08")) {
            return false;
        }
        try {
            return connection.isValid(5);
        } catch (SQLException invalid) {
            return false;
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
                    () -> JdbcTransaction.inOneCommit(c, dialect, statements, batch)), context.reports());
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.WARNING, "queue {0}: the acks of rows of table {1} did not take effect, so those"
                    + " rows return: {2}", context.queue(), context.table(), e.getMessage());
        }
        close();
        // Counted among the sessions until its locks are gone: a claim's scan reads past them.
        form.sessions().remove(this);
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
            form.sessions().closedInstead();
            return;
        }
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.log(Level.DEBUG, "giving an advisory lock session back failed", Redaction.redact(e));
        }
    }
}
