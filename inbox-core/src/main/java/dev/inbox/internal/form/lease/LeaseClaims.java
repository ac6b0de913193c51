package dev.inbox.internal.form.lease;

import dev.inbox.internal.form.AckBatch;
import dev.inbox.internal.form.ClaimedRows;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.form.Reports;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.jdbc.LostRaces;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.LeaseStatements;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The lease form's claims. A claim reads "now" once: due rows and ended leases are judged from it
 * (as stored, rounded down), and the expiry written (now + lease, rounded up) starts from it; it
 * counts the attempt and commits at once. The claims that carry the acks waiting do so in the same
 * round trip (a chain of statements, PostgreSQL) or the same transaction (one writer at a time,
 * SQLite).
 */
final class LeaseClaims {
    private final FormContext context;
    private final Dialect dialect;
    private final LeaseSql sql;
    private final Duration lease;
    private final ClaimedRows claimed;
    private final Leased leased;
    private final Reports reports;
    private final LostRaces races;

    LeaseClaims(FormContext context, LeaseSql sql, Duration lease, Leased leased) {
        this.context = context;
        this.dialect = context.dialect();
        this.sql = sql;
        this.lease = lease;
        this.claimed = context.rows();
        this.leased = leased;
        this.reports = context.reports();
        this.races = new LostRaces(context.queue(), "claim", dialect, context.listener());
    }

    /**
     * A claim on a connection of its own, in autocommit: one statement, or a select and its stamps.
     * A claim that lost its rows to another's (on Galera, another node's claim certified first)
     * claims again at once; one that loses every try takes no rows this time.
     */
    List<InFlight> claim(Instant now, int limit) throws SQLException {
        Instant at = dialect.stored(now);
        Instant expiry = dialect.deadline(now, lease);
        return races.run(() -> context.connections().use(connection -> sql.style() == LeaseStatements.ClaimStyle.RETURNING
                ? readClaim(connection, at, expiry, limit) : claimThenStamp(connection, at, expiry, limit)), List.of());
    }

    /**
     * The claim and the acks {@code carried} after it in one round trip, each committed on its own.
     * Once the chain has run, whether the acks took is read from its second result, or, where that
     * read fails, not known: they are reported failed.
     */
    List<InFlight> chained(AckBatch carried, Instant now, int limit) throws SQLException {
        Instant at = dialect.stored(now);
        Instant expiry = dialect.deadline(now, lease);
        Sql chain = sql.claimCarryingAcks();
        return context.connections().use(connection -> context.connections().prepared(connection, chain, ps -> {
            chain.setTime(ps, "now", at, dialect);
            chain.setTime(ps, "expiry", expiry, dialect);
            chain.setInt(ps, "limit", limit);
            Object[] ids = carried.bindCarried(ps, chain);
            ps.execute();
            try {
                List<InFlight> rows;
                try (ResultSet rs = ps.getResultSet()) {
                    rows = claimed.read(rs, expiry, leased);
                }
                Sql.toNextResultSet(ps, "the acks carried by a claim");
                try (ResultSet rs = ps.getResultSet()) {
                    carried.carried(rs, ids, reports);
                }
                return rows;
            } catch (SQLException | RuntimeException e) {
                carried.fail(reports, e);
                throw e;
            }
        }));
    }

    /**
     * The acks {@code carried}, then the claim, in one transaction: one commit for both where the
     * database takes one writer at a time. The acks are reported once it commits; a claim that fails
     * leaves them to commit and is thrown after.
     */
    List<InFlight> inAckTransaction(AckBatch carried, Instant now, int limit) throws SQLException {
        Instant at = dialect.stored(now);
        Instant expiry = dialect.deadline(now, lease);
        return context.connections().use(connection -> carried.writeThen(connection,
                () -> readClaim(connection, at, expiry, limit), reports));
    }

    /** Runs the claim statement and reads its rows, each leased until {@code expiry}. */
    private List<InFlight> readClaim(Connection connection, Instant now, Instant expiry, int limit)
            throws SQLException {
        Sql claim = sql.claim();
        return context.connections().prepared(connection, claim, ps -> {
            claim.setTime(ps, "now", now, dialect);
            claim.setTime(ps, "expiry", expiry, dialect);
            claim.setInt(ps, "limit", limit);
            try (ResultSet rs = ps.executeQuery()) {
                return claimed.read(rs, expiry, leased);
            }
        });
    }

    private List<InFlight> claimThenStamp(Connection connection, Instant now, Instant expiry, int limit)
            throws SQLException {
        // At REPEATABLE READ a SKIP LOCKED claim also locks gaps and collapses under concurrency.
        return JdbcTransaction.run(connection, dialect, Connection.TRANSACTION_READ_COMMITTED, () -> {
            List<InFlight> rows = readClaim(connection, now, expiry, limit);
            sql.stamp().run(context.connections(), connection, rows, dialect,
                    (stamp, ps) -> stamp.setTime(ps, "expiry", expiry, dialect));
            return rows;
        });
    }
}
