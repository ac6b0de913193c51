package dev.inbox.engine.form;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.engine.InFlight;
import dev.inbox.engine.Sql;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.LeaseStatements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The lease form. The claim reads "now" once: due rows and ended leases are judged from it and the
 * expiry written (now + lease) starts from it. The claim counts the attempt and commits; the
 * expiry is the delivery's ownership token, and every settlement or extension takes effect only
 * while the row still holds it.
 */
public final class LeaseForm implements Form {
    private final String queue;
    private final String table;
    private final Dialect dialect;
    private final LeaseStatements.ClaimStyle style;
    private final Sql claim;
    private final Sql stamp;
    private final Sql extend;
    private final Sql ack;
    private final Sql retry;
    private final Sql drop;
    private final Sql deadLetter;
    private final Sql release;
    private final Duration lease;
    private final ClaimedRows claimed;

    /**
     * @param deadLetter the statement that copies a row into the dead-letter table, or null for none
     */
    public LeaseForm(String queue, String table, Dialect dialect, LeaseStatements statements, String deadLetter,
            Duration lease, boolean binaryPayload, ObjectMapper json) {
        this.queue = queue;
        this.table = table;
        this.dialect = dialect;
        this.style = statements.style();
        this.claim = new Sql("lease claim", statements.claim());
        this.stamp = statements.stamp() == null ? null : new Sql("lease stamp", statements.stamp());
        this.extend = new Sql("lease extend", statements.extend());
        this.ack = new Sql("ack", statements.ack());
        this.retry = new Sql("retry", statements.retry());
        this.drop = new Sql("drop", statements.drop());
        this.deadLetter = deadLetter == null ? null : new Sql("dead letter", deadLetter);
        this.release = statements.release() == null ? null : new Sql("release", statements.release());
        this.lease = lease;
        this.claimed = new ClaimedRows(queue, table, binaryPayload, json);
    }

    @Override
    public List<Sql> statements() {
        List<Sql> all = new ArrayList<>(List.of(claim, extend, ack, retry, drop));
        if (stamp != null) {
            all.add(1, stamp);
        }
        for (Sql optional : new Sql[] {deadLetter, release}) {
            if (optional != null) {
                all.add(optional);
            }
        }
        return all;
    }

    @Override
    public boolean keepsLeases() {
        return true;
    }

    @Override
    public List<InFlight> claim(ConnectionSource connections, Instant now, int limit) throws SQLException {
        // Due rows are judged by "now" as stored (rounded down), the expiry from the exact instant (rounded up).
        Instant at = dialect.stored(now);
        Instant expiry = dialect.deadline(now, lease);
        return connections.use(connection -> style == LeaseStatements.ClaimStyle.RETURNING
                ? claimReturning(connection, at, expiry, limit)
                : claimThenStamp(connection, at, expiry, limit));
    }

    private List<InFlight> claimReturning(Connection connection, Instant now, Instant expiry, int limit)
            throws SQLException {
        // One statement in autocommit: it leases, counts the attempt and commits at once.
        try (PreparedStatement ps = claim.prepare(connection)) {
            bindClaim(ps, now, expiry, limit);
            try (ResultSet rs = ps.executeQuery()) {
                return claimed.read(rs, expiry);
            }
        }
    }

    private List<InFlight> claimThenStamp(Connection connection, Instant now, Instant expiry, int limit)
            throws SQLException {
        // At REPEATABLE READ a SKIP LOCKED claim also locks gaps and collapses under concurrency.
        return Transactions.run(connection, Connection.TRANSACTION_READ_COMMITTED, () -> {
            List<InFlight> rows;
            try (PreparedStatement ps = claim.prepare(connection)) {
                bindClaim(ps, now, expiry, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    rows = claimed.read(rs, expiry);
                }
            }
            if (!rows.isEmpty()) {
                try (PreparedStatement ps = stamp.prepare(connection)) {
                    for (InFlight row : rows) {
                        stamp.setTime(ps, "expiry", expiry, dialect);
                        stamp.set(ps, "id", row.id());
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
            }
            return rows;
        });
    }

    private void bindClaim(PreparedStatement ps, Instant now, Instant expiry, int limit) throws SQLException {
        claim.setTime(ps, "now", now, dialect);
        claim.setTime(ps, "expiry", expiry, dialect);
        claim.setInt(ps, "limit", limit);
    }

    @Override
    public boolean extend(Connection connection, InFlight delivery, Instant now) throws SQLException {
        Instant next = dialect.deadline(now, lease);
        if (next.equals(delivery.token())) {
            return true;
        }
        try (PreparedStatement ps = extend.prepare(connection)) {
            extend.setTime(ps, "expiry", next, dialect);
            extend.set(ps, "id", delivery.id());
            extend.setTime(ps, "token", delivery.token(), dialect);
            if (ps.executeUpdate() == 1) {
                delivery.token(next);
                return true;
            }
            return false;
        }
    }

    @Override
    public void settle(ConnectionSource connections, InFlight delivery, Outcome outcome, Instant now)
            throws SQLException {
        connections.use(connection -> {
            settle(connection, delivery, outcome, now);
            return null;
        });
    }

    private void settle(Connection connection, InFlight delivery, Outcome outcome, Instant now) throws SQLException {
        if (Settlements.run(connection, Settlements.of(outcome, ack, retry, drop), delivery, outcome, now,
                dialect) != 1) {
            throw lost(delivery, outcome.toString());
        }
    }

    @Override
    public boolean acksTogether() {
        return true;
    }

    @Override
    public List<InboxException> ackAll(ConnectionSource connections, List<InFlight> deliveries, Instant now)
            throws SQLException {
        // One commit for all: where commits wait for the disk, that is most of the saving.
        boolean[] took = connections.use(connection -> Transactions.inOneCommit(connection, dialect,
                deliveries.size(), () -> Settlements.runBatch(connection, ack, deliveries, Outcome.ack(), now,
                        dialect)));
        List<InboxException> lost = new ArrayList<>(deliveries.size());
        for (int i = 0; i < took.length; i++) {
            lost.add(took[i] ? null : lost(deliveries.get(i), "ack"));
        }
        return lost;
    }

    @Override
    public void deadLetter(ConnectionSource connections, InFlight delivery, String error, Instant now)
            throws SQLException {
        connections.use(connection -> Transactions.run(connection, -1, () -> {
            if (!DeadLetters.move(connection, deadLetter, drop, delivery, error, now, dialect)) {
                throw lost(delivery, "move to the dead-letter table");
            }
            return null;
        }));
    }

    private InboxException lost(InFlight delivery, String what) {
        return new InboxException(InboxException.Kind.LEASE_LOST, "queue " + queue + ": row " + delivery.id()
                + " of table " + table + " was claimed again after its lease ran out, so its " + what
                + " did not take effect; keep handlers within the lease or let the keeper reach the database");
    }

    @Override
    public boolean release(ConnectionSource connections, InFlight delivery, boolean started) throws SQLException {
        Sql sql = started || release == null ? retry : release;
        return connections.use(connection -> {
            try (PreparedStatement ps = sql.prepare(connection)) {
                sql.set(ps, "id", delivery.id());
                sql.setTime(ps, "token", delivery.token(), dialect);
                sql.setTime(ps, "due", null, dialect);
                return ps.executeUpdate() == 1;
            }
        });
    }
}
