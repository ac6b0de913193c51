package dev.inbox.internal.form;

import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * The acks of a subscription's workers, gathered into one batch: the next claim carries them, or
 * the writer writes them together, so acks share round trips and commits. A worker hands its ack
 * over and takes its next row.
 */
public final class AckCarry extends Carry<AckBatch> {
    private final ConnectionSource connections;
    private final Dialect dialect;
    private final Reports reports;
    /** Guarded by the carry's lock. */
    private AckBatch waiting;

    /**
     * @param empty   the batch the acks gather in
     * @param reports where each ack is reported once written
     * @param room    how many acks may wait before a worker writes them itself
     * @param wait    {@link Carry#WAIT} where claims carry the acks, zero where the writer writes each batch at once
     */
    public AckCarry(String name, AckBatch empty, ConnectionSource connections, Dialect dialect, Reports reports,
            int room, Duration wait) {
        super(name, room, wait);
        this.waiting = empty;
        this.connections = connections;
        this.dialect = dialect;
        this.reports = reports;
    }

    /** Hands over the ack of a delivery already settled, so no keeper moves its token meanwhile. */
    public void add(InFlight delivery, Instant now) {
        add(() -> waiting.add(delivery, now));
    }

    /** Where the acks of this carry are reported, by a claim that carries them too. */
    public Reports reports() {
        return reports;
    }

    @Override
    protected int waiting() {
        return waiting.size();
    }

    @Override
    protected AckBatch takeLoad() {
        return waiting.isEmpty() ? null : waiting.takeAll();
    }

    @Override
    protected boolean spent(AckBatch batch) {
        return batch.isEmpty();
    }

    @Override
    protected void fail(AckBatch batch, Exception cause) {
        batch.fail(reports, cause);
    }

    /** Writes one batch on a connection of its own; each ack is reported, a failure included. */
    @Override
    protected void writeApart(AckBatch batch) {
        try {
            connections.use(connection -> {
                batch.write(connection, this::onceRetried, reports);
                return null;
            });
        } catch (SQLException | RuntimeException e) {
            batch.fail(reports, e); // reported per ack by the batch, or, when no connection came, here
        }
    }

    /** One commit for all; a deadlock or serialization failure rolls the whole batch back, so it runs once more. */
    private boolean[] onceRetried(Connection connection, int statements, JdbcTransaction.Work<boolean[]> batch)
            throws SQLException {
        try {
            return JdbcTransaction.inOneCommit(connection, dialect, statements, batch);
        } catch (SQLException e) {
            if (e.getSQLState() == null || !e.getSQLState().startsWith("40")) {
                throw e;
            }
            return JdbcTransaction.inOneCommit(connection, dialect, statements, batch);
        }
    }
}
