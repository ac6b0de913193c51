package dev.inbox.engine.form;

import dev.inbox.engine.InFlight;
import dev.inbox.engine.SerialTask;
import dev.inbox.engine.Threads;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes the acks of a lease subscription's workers together. A worker hands its ack over and
 * takes its next row; a writer task writes whatever gathered meanwhile as one {@link AckBatch}, so
 * acks share round trips and commits. A worker that finds {@code limit} acks waiting writes them
 * itself, so none waits for a thread. Once closed, an ack handed over is written at once on the
 * caller's thread.
 */
final class AckWriter {
    private final AckBatch waiting;
    private final ConnectionSource connections;
    private final Dialect dialect;
    private final Reports reports;
    private final int limit;

    private final ReentrantLock lock = new ReentrantLock();
    private SerialTask writer;
    private boolean closed;

    AckWriter(AckBatch empty, ConnectionSource connections, Dialect dialect, Reports reports, int limit) {
        this.waiting = empty;
        this.connections = connections;
        this.dialect = dialect;
        this.reports = reports;
        this.limit = limit;
    }

    /** Starts writing, the acks handed over before included. */
    void start(Threads threads, String name) {
        SerialTask task = new SerialTask(threads, name, this::writeWaiting);
        lock.lock();
        try {
            writer = task;
        } finally {
            lock.unlock();
        }
        task.signal();
    }

    /** Hands over the ack of a delivery already marked settled, so no keeper moves its token meanwhile. */
    void add(InFlight delivery, Instant now) {
        AckBatch full;
        lock.lock();
        try {
            waiting.add(delivery, now);
            if (!closed && waiting.size() < limit) {
                if (waiting.size() == 1 && writer != null) {
                    writer.signal();
                }
                return;
            }
            full = waiting.takeAll();
        } finally {
            lock.unlock();
        }
        write(full);
    }

    /** The writer's step: writes what gathered; true when it wrote, to look again. */
    private boolean writeWaiting() {
        AckBatch batch;
        lock.lock();
        try {
            if (waiting.isEmpty()) {
                return false;
            }
            batch = waiting.takeAll();
        } finally {
            lock.unlock();
        }
        write(batch);
        return true;
    }

    /** Stops taking acks once those waiting are written; waits up to {@code wait} for the writer. */
    boolean close(Duration wait) throws InterruptedException {
        AckBatch left;
        lock.lock();
        try {
            closed = true;
            left = waiting.takeAll();
        } finally {
            lock.unlock();
        }
        if (!left.isEmpty()) {
            write(left);
        }
        return writer == null || writer.awaitIdle(wait);
    }

    /** Writes one batch on a connection of its own; each ack is reported, a failure included. */
    private void write(AckBatch batch) {
        try {
            connections.use(connection -> {
                batch.write(connection, this::onceRetried, reports);
                return null;
            });
        } catch (SQLException | RuntimeException e) {
            // reported per ack by the batch, or, when no connection came, here
            batch.fail(reports, e);
        }
    }

    /** One commit for all; a deadlock or serialization failure rolls the whole batch back, so it runs once more. */
    private boolean[] onceRetried(Connection connection, int statements, Transactions.Work<boolean[]> batch)
            throws SQLException {
        try {
            return Transactions.inOneCommit(connection, dialect, statements, batch);
        } catch (SQLException e) {
            if (e.getSQLState() == null || !e.getSQLState().startsWith("40")) {
                throw e;
            }
            return Transactions.inOneCommit(connection, dialect, statements, batch);
        }
    }
}
