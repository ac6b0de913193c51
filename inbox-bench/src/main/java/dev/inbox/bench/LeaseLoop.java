package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.InboxSpec;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.TableShape;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The lease form by hand. A claim commits at once (one statement, or select and stamp in one
 * transaction at READ COMMITTED); the acks of a claim's rows follow as one JDBC batch in one
 * transaction (one ack in autocommit when the batch size is 1), or as the dialect's one statement
 * for many acks where it has one, in autocommit. Transactional: each row's effect and ack commit
 * together, on a second connection, as the engine's delivery transaction does.
 */
final class LeaseLoop implements BaselineLoop {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final Connection claims;
    private final Connection settles;
    private final boolean transactional;
    /** Acks of a claim go in one batch and one commit: not transactional, batch size above 1. */
    private final boolean batchedAcks;
    private final Dialect dialect;
    private final int batch;
    private final Sql claim;
    private final Sql stamp;
    private final Sql ack;
    /** The acks of a claim in one statement, in autocommit; null for a batch of {@code ack}. */
    private final Sql ackAll;
    private final PreparedStatement claimPs;
    private final PreparedStatement stampPs;
    private final PreparedStatement ackPs;
    private final PreparedStatement effectPs;
    /** The stamps, and the acks of a claim, as one statement for their rows where the dialect writes one; else null. */
    private final RowList stampRows;
    private final RowList ackRows;

    LeaseLoop(BenchDatabase db, InboxSpec spec, LeaseStatements statements, String ackAll, int batch,
            boolean transactional) throws SQLException {
        this.dialect = db.dialect();
        this.batch = batch;
        this.transactional = transactional;
        boolean stamped = statements.style() == LeaseStatements.ClaimStyle.SELECT_THEN_STAMP;
        this.claim = new Sql("claim", statements.claim());
        this.stamp = stamped ? new Sql("stamp", statements.stamp()) : null;
        this.ack = new Sql("ack", statements.ack());
        this.ackAll = ackAll == null ? null : new Sql("ack all", ackAll);
        this.claims = db.connect();
        if (stamped) {
            claims.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            claims.setAutoCommit(false);
        }
        this.batchedAcks = !transactional && batch > 1;
        // Acks commit apart from the claims, so they go where no claim transaction is open.
        this.settles = stamped || transactional || batchedAcks ? db.connect() : claims;
        if (transactional || batchedAcks && ackAll == null) {
            dialect.begin(settles, spec);
        }
        this.claimPs = claim.prepare(claims);
        this.stampPs = stamped ? stamp.prepare(claims) : null;
        this.ackPs = (this.ackAll != null ? this.ackAll : ack).prepare(settles);
        this.effectPs = transactional ? settles.prepareStatement(BenchDatabase.EFFECT_INSERT) : null;
        TableShape shape = db.shape(ClaimForm.LEASE);
        this.stampRows = stamped ? RowList.of(dialect, statements.stampRows(), stamp, claims) : null;
        this.ackRows = batchedAcks && ackAll == null ? RowList.of(dialect, statements.ackRows(), ack, settles) : null;
    }

    @Override
    public int round() throws SQLException {
        Instant now = Instant.now();
        Instant expiry = dialect.deadline(now, LEASE);
        List<Object> ids = claim(dialect.stored(now), expiry);
        if (batchedAcks) {
            ackAll(ids, expiry);
            return ids.size();
        }
        for (Object id : ids) {
            if (transactional) {
                effectPs.setObject(1, id);
                effectPs.executeUpdate();
            }
            ack.set(ackPs, "id", id);
            ack.setTime(ackPs, "token", expiry, dialect);
            if (ackPs.executeUpdate() != 1) {
                throw new IllegalStateException("the ack of row " + id + " changed no row");
            }
            if (transactional) {
                settles.commit();
            }
        }
        return ids.size();
    }

    private void ackAll(List<Object> ids, Instant expiry) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        if (ackAll != null) {
            BaselineLoop.ackAllInOne(ackPs, ackAll, ids, expiry, dialect);
            return;
        }
        if (ackRows != null && ids.size() > 1) {
            ackRows.run(ids, expiry, null);
            settles.commit();
            return;
        }
        for (Object id : ids) {
            ack.set(ackPs, "id", id);
            ack.setTime(ackPs, "token", expiry, dialect);
            ackPs.addBatch();
        }
        BaselineLoop.executeChangingEach(ackPs, ack.name());
        settles.commit();
    }

    private List<Object> claim(Instant now, Instant expiry) throws SQLException {
        claim.setTime(claimPs, "now", now, dialect);
        claim.setTime(claimPs, "expiry", expiry, dialect);
        claim.setInt(claimPs, "limit", batch);
        List<Object> ids;
        try (ResultSet rs = claimPs.executeQuery()) {
            ids = BaselineLoop.ids(rs);
        }
        if (stampRows != null && ids.size() > 1) {
            stampRows.run(ids, null, expiry);
            claims.commit();
        } else if (stampPs != null) {
            for (Object id : ids) {
                stamp.setTime(stampPs, "expiry", expiry, dialect);
                stamp.set(stampPs, "id", id);
                stampPs.addBatch();
            }
            if (!ids.isEmpty()) {
                stampPs.executeBatch();
            }
            claims.commit();
        }
        return ids;
    }

    @Override
    public void close() throws SQLException {
        try (claims) {
            if (settles != claims) {
                if (!settles.getAutoCommit()) {
                    settles.rollback();
                }
                settles.close();
            }
        }
    }
}
