package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.InboxSpec;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.RowLockStatements;
import dev.inbox.spi.TableShape;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * The row lock form by hand: a claim's transaction locks its rows, deletes them in one JDBC
 * batch, and commits.
 * Transactional: one row per claim, its effect written in the claim's transaction after a
 * savepoint, as the engine's row lock form does (the savepoint lets a retry roll the handler's
 * writes back and still settle the row under its lock; PostgreSQL makes it a subtransaction).
 */
final class RowLockLoop implements BaselineLoop {
    private final Connection connection;
    private final Dialect dialect;
    private final int limit;
    private final boolean transactional;
    private final Sql claim;
    private final Sql stamp;
    private final Sql ack;
    /** The acks of a claim in one statement; null for a batch of {@code ack}. */
    private final Sql ackAll;
    private final PreparedStatement claimPs;
    private final PreparedStatement stampPs;
    private final PreparedStatement ackPs;
    private final PreparedStatement effectPs;
    /** The attempts counted, and the deletes, as one statement for their rows where the dialect writes one. */
    private final RowList stampRows;
    private final RowList ackRows;

    RowLockLoop(BenchDatabase db, InboxSpec spec, RowLockStatements statements, String ackAll, int batch,
            boolean transactional) throws SQLException {
        this.dialect = db.dialect();
        this.limit = transactional ? 1 : batch;
        this.transactional = transactional;
        this.claim = new Sql("claim", statements.claim());
        this.stamp = statements.stamp() == null ? null : new Sql("stamp", statements.stamp());
        this.ack = new Sql("ack", statements.ack());
        this.ackAll = ackAll == null ? null : new Sql("ack all", ackAll);
        this.connection = db.connect();
        // The claims' transactions at the level the engine opens them (READ COMMITTED on MySQL).
        dialect.begin(connection, spec);
        this.claimPs = claim.prepare(connection);
        this.stampPs = stamp == null ? null : stamp.prepare(connection);
        this.ackPs = (this.ackAll != null ? this.ackAll : ack).prepare(connection);
        this.effectPs = transactional ? connection.prepareStatement(BenchDatabase.EFFECT_INSERT) : null;
        TableShape shape = db.shape(ClaimForm.ROW_LOCK);
        this.stampRows = stamp == null ? null : RowList.of(dialect, statements.stampRows(), stamp, connection);
        this.ackRows = transactional || this.ackAll != null ? null : RowList.of(dialect, statements.ackRows(), ack, connection);
    }

    @Override
    public int round() throws SQLException {
        claim.setTime(claimPs, "now", dialect.stored(Instant.now()), dialect);
        claim.setInt(claimPs, "limit", limit);
        List<Object> ids;
        try (ResultSet rs = claimPs.executeQuery()) {
            ids = BaselineLoop.ids(rs);
        }
        if (stampRows != null && ids.size() > 1) {
            stampRows.run(ids, null, null);
        } else if (stampPs != null && !ids.isEmpty()) {
            for (Object id : ids) {
                stamp.set(stampPs, "id", id);
                stampPs.addBatch();
            }
            stampPs.executeBatch();
        }
        if (ackAll != null) {
            if (!ids.isEmpty()) {
                BaselineLoop.ackAllInOne(ackPs, ackAll, ids, null, dialect);
            }
            connection.commit();
            return ids.size();
        }
        if (ackRows != null && ids.size() > 1) {
            ackRows.run(ids, null, null);
            connection.commit();
            return ids.size();
        }
        for (Object id : ids) {
            if (transactional) {
                connection.setSavepoint();
                effectPs.setObject(1, id);
                effectPs.executeUpdate();
            }
            ack.set(ackPs, "id", id);
            ackPs.addBatch();
        }
        if (!ids.isEmpty()) {
            BaselineLoop.executeChangingEach(ackPs, ack.name());
        }
        connection.commit();
        return ids.size();
    }

    @Override
    public void close() throws SQLException {
        try (connection) {
            connection.rollback();
        }
    }
}
