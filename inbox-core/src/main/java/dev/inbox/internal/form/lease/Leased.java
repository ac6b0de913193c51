package dev.inbox.internal.form.lease;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.internal.form.AckCarry;
import dev.inbox.internal.form.Claim;
import dev.inbox.internal.form.DeadLetters;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.HandlerTransaction;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.form.Settlements;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.jdbc.LostRaces;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * The claim of every lease delivery: the row holds its lease, and the process nothing. The expiry
 * is the delivery's ownership token; each settlement and extension takes effect only while the row
 * still holds it, else it is lost to the claim that took the row since.
 */
final class Leased implements Claim {
    /**
     * The most a release waits, in seconds. It updates one row by its key, so a release that takes
     * longer waits for a lock (another connection holding the table), and its row returns when its
     * lease runs out anyway: ended, it gives its connection back at once, where a stop would leave
     * it held until the database's lock timeout (PostgreSQL has none).
     */
    private static final int RELEASE_WAIT_SECONDS = 1;

    private final FormContext context;
    private final Dialect dialect;
    private final LeaseSql sql;
    private final Duration lease;
    /** Null in a transactional subscription, whose acks commit with their delivery's transaction. */
    private final AckCarry acks;
    private final LostRaces settlements;
    private final LostRaces extensions;

    Leased(FormContext context, LeaseSql sql, Duration lease, AckCarry acks) {
        this.context = context;
        this.dialect = context.dialect();
        this.sql = sql;
        this.lease = lease;
        this.acks = acks;
        this.settlements = new LostRaces(context.queue(), "settlement", dialect, context.listener());
        this.extensions = new LostRaces(context.queue(), "lease extension", dialect, context.listener());
    }

    @Override
    public void ack(InFlight delivery, Instant now) {
        acks.add(delivery, now);
    }

    @Override
    public void settle(InFlight delivery, Outcome outcome, Instant now, Duration ifRefused) throws SQLException {
        context.connections().use(connection -> {
            try {
                settlements.run(() -> {
                    settle(connection, delivery, outcome, now);
                    return null;
                });
            } catch (SQLException e) {
                putOff(connection, delivery, ifRefused, now, e);
                throw e;
            }
            return null;
        });
    }

    @Override
    public void deadLetter(InFlight delivery, String error, String lastError, Instant now, Duration ifRefused) throws SQLException {
        context.connections().use(connection -> {
            try {
                return settlements.run(() -> JdbcTransaction.run(connection, -1, () -> {
                    if (!DeadLetters.move(connection, sql.deadLetter(), sql.drop(), delivery, error, lastError, now, dialect)) {
                        throw lost(delivery, "move to the dead-letter table");
                    }
                    return null;
                }));
            } catch (SQLException e) {
                // Rolled back: the row still holds its lease, which the retry moves to the back-off's end.
                putOff(connection, delivery, ifRefused, now, e);
                throw e;
            }
        });
    }

    @Override
    public boolean release(InFlight delivery, boolean started) throws SQLException {
        Sql back = started || sql.release() == null ? sql.retry() : sql.release();
        return context.connections().use(connection -> {
            try (PreparedStatement ps = back.prepare(connection)) {
                ps.setQueryTimeout(RELEASE_WAIT_SECONDS);
                try {
                    back.set(ps, "id", delivery.id());
                    back.setTime(ps, "token", delivery.token(), dialect);
                    back.setTime(ps, "due", null, dialect);
                    back.setString(ps, "lastError", null); // a retry's statement keeps the last error
                    return ps.executeUpdate() == 1;
                } finally {
                    ps.setQueryTimeout(0); // a server's statement cache may hand this statement to a settlement
                }
            }
        });
    }

    @Override
    public HandlerTransaction begin(InFlight delivery, DeliveryTransactions transactions) throws Exception {
        return HandlerTransaction.apart(transactions.begin(context.spec()),
                (connection, now) -> settle(connection, delivery, Outcome.ack(), now), () -> { });
    }

    @Override
    public boolean expired(InFlight delivery, Instant now) {
        return !now.isBefore(delivery.token());
    }

    /** Moves the delivery's lease on at {@code now}; false when the row is no longer held. */
    boolean extend(Connection connection, InFlight delivery, Instant now) throws SQLException {
        Instant next = dialect.deadline(now, lease);
        if (next.equals(delivery.token())) {
            return true;
        }
        Sql extend = sql.extend();
        try (PreparedStatement ps = extend.prepare(connection)) {
            extend.setTime(ps, "expiry", next, dialect);
            extend.set(ps, "id", delivery.id());
            extend.setTime(ps, "token", delivery.token(), dialect);
            if (extensions.run(ps::executeUpdate) == 1) {
                delivery.token(next);
                return true;
            }
            return false;
        }
    }

    /** Moves a row whose settlement was refused to the end of {@code delay}, keeping a failure with {@code refusal}. */
    private void putOff(Connection connection, InFlight delivery, Duration delay, Instant now, SQLException refusal) {
        try {
            Settlements.putOff(connection, sql.retry(), delivery, delay, now, dialect);
        } catch (SQLException | RuntimeException e) {
            refusal.addSuppressed(e);
        }
    }

    private void settle(Connection connection, InFlight delivery, Outcome outcome, Instant now) throws SQLException {
        if (Settlements.run(connection, Settlements.of(outcome, sql.ack(), sql.retry(), sql.drop()), delivery, outcome,
                now, dialect) != 1) {
            throw lost(delivery, outcome.toString());
        }
    }

    private InboxException lost(InFlight delivery, String what) {
        return lost(context, delivery, what);
    }

    /** {@code LEASE_LOST}: the row was claimed again after its lease ran out, so {@code what} did not take effect. */
    static InboxException lost(FormContext context, InFlight delivery, String what) {
        return new InboxException(InboxException.Kind.LEASE_LOST, "queue " + context.queue() + ": row "
                + delivery.id() + " of table " + context.table() + " was claimed again after its lease ran"
                + " out, so its " + what + " did not take effect; keep handlers within the lease or let the keeper"
                + " reach the database");
    }
}
