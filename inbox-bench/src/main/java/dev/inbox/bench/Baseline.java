package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.engine.Sql;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.RowLockStatements;
import dev.inbox.spi.TableShape;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The plain JDBC loop the engine is measured against: the same claim and settlement statements
 * the dialect builds, on the same number of threads and the same batch size, with no engine
 * around them. Each thread keeps one connection; a lease claim and its acks commit one by one, a
 * row lock claim and its deletes in one transaction.
 */
final class Baseline {
    private Baseline() {}

    /** Drains the filled table; returns jobs per second. */
    static double drain(BenchDatabase db, Dialect dialect, ClaimForm form, int threads, int batch, int jobs)
            throws Exception {
        TableShape shape = new TableShape(db.spec(form), dialect::quote,
                Map.of("payload", db.name().equals("postgres") ? "bytea" : "blob"));
        AtomicLong done = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        List<Exception> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try (Connection c = db.connect()) {
                    if (form == ClaimForm.LEASE) {
                        leaseLoop(c, dialect, dialect.lease(shape), batch, done);
                    } else {
                        rowLockLoop(c, dialect, dialect.rowLock(shape), batch, done);
                    }
                } catch (Exception e) {
                    failures.add(e);
                }
            });
            workers.add(thread);
            thread.start();
        }
        for (Thread thread : workers) {
            thread.join();
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
        return done.get() / ((System.nanoTime() - start) / 1e9);
    }

    private static void leaseLoop(Connection c, Dialect dialect, LeaseStatements statements, int batch, AtomicLong done)
            throws SQLException {
        Sql claim = new Sql("claim", statements.claim());
        Sql stamp = statements.stamp() == null ? null : new Sql("stamp", statements.stamp());
        Sql ack = new Sql("ack", statements.ack());
        boolean stamped = statements.style() == LeaseStatements.ClaimStyle.SELECT_THEN_STAMP;
        if (stamped) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        try (PreparedStatement claimPs = claim.prepare(c); PreparedStatement ackPs = ack.prepare(c);
                PreparedStatement stampPs = stamp == null ? null : stamp.prepare(c)) {
            while (true) {
                Instant now = Instant.now();
                Instant expiry = dialect.deadline(now, Duration.ofSeconds(30));
                claim.setTime(claimPs, "now", dialect.stored(now), dialect);
                claim.setTime(claimPs, "expiry", expiry, dialect);
                claim.setInt(claimPs, "limit", batch);
                List<Object> ids = new ArrayList<>();
                if (stamped) {
                    c.setAutoCommit(false);
                }
                try (ResultSet rs = claimPs.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject(1));
                    }
                }
                if (stamped) {
                    for (Object id : ids) {
                        stamp.setTime(stampPs, "expiry", expiry, dialect);
                        stamp.set(stampPs, "id", id);
                        stampPs.addBatch();
                    }
                    if (!ids.isEmpty()) {
                        stampPs.executeBatch();
                    }
                    c.commit();
                    c.setAutoCommit(true);
                }
                if (ids.isEmpty()) {
                    return;
                }
                for (Object id : ids) {
                    ack.set(ackPs, "id", id);
                    ack.setTime(ackPs, "token", expiry, dialect);
                    ackPs.executeUpdate();
                }
                done.addAndGet(ids.size());
            }
        }
    }

    private static void rowLockLoop(Connection c, Dialect dialect, RowLockStatements statements, int batch,
            AtomicLong done) throws SQLException {
        Sql claim = new Sql("claim", statements.claim());
        Sql stamp = statements.stamp() == null ? null : new Sql("stamp", statements.stamp());
        Sql ack = new Sql("ack", statements.ack());
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        c.setAutoCommit(false);
        try (PreparedStatement claimPs = claim.prepare(c); PreparedStatement ackPs = ack.prepare(c);
                PreparedStatement stampPs = stamp == null ? null : stamp.prepare(c)) {
            while (true) {
                claim.setTime(claimPs, "now", dialect.stored(Instant.now()), dialect);
                claim.setInt(claimPs, "limit", batch);
                List<Object> ids = new ArrayList<>();
                try (ResultSet rs = claimPs.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject(1));
                    }
                }
                if (ids.isEmpty()) {
                    c.commit();
                    return;
                }
                if (stampPs != null) {
                    for (Object id : ids) {
                        stamp.set(stampPs, "id", id);
                        stampPs.addBatch();
                    }
                    stampPs.executeBatch();
                }
                for (Object id : ids) {
                    ack.set(ackPs, "id", id);
                    ackPs.executeUpdate();
                }
                c.commit();
                done.addAndGet(ids.size());
            }
        }
    }
}
