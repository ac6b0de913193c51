package dev.inbox.engine.form;

import dev.inbox.engine.InFlight;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes the acks of a lease subscription's workers together. A worker hands its ack over and
 * takes its next row; one thread writes whatever gathered meanwhile as one {@link AckBatch}, so
 * acks share round trips and commits. A worker waits only while {@code limit} acks are already
 * waiting. Once closed, an ack handed over is written at once on the caller's thread.
 */
final class AckWriter {
    private final AckBatch waiting;
    private final ConnectionSource connections;
    private final Dialect dialect;
    private final Reports reports;
    private final int limit;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition gathered = lock.newCondition();
    private final Condition roomy = lock.newCondition();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private boolean closed;

    AckWriter(AckBatch empty, ConnectionSource connections, Dialect dialect, Reports reports, int limit) {
        this.waiting = empty;
        this.connections = connections;
        this.dialect = dialect;
        this.reports = reports;
        this.limit = limit;
    }

    /** Hands over the ack of a delivery already marked settled, so no keeper moves its token meanwhile. */
    void add(InFlight delivery, Instant now) {
        AckBatch alone;
        lock.lock();
        try {
            while (!closed && waiting.size() >= limit) {
                // A worker never gives up its ack: the writer always makes room, or fails the batch and moves on.
                roomy.awaitUninterruptibly();
            }
            waiting.add(delivery, now);
            if (!closed) {
                if (waiting.size() == 1) {
                    gathered.signal();
                }
                return;
            }
            alone = waiting.takeAll();
        } finally {
            lock.unlock();
        }
        write(alone);
    }

    /** The writer: runs until closed, writing what is left first. */
    void run() {
        try {
            while (true) {
                AckBatch batch;
                lock.lock();
                try {
                    while (waiting.isEmpty() && !closed) {
                        gathered.awaitUninterruptibly();
                    }
                    if (waiting.isEmpty()) {
                        return;
                    }
                    batch = waiting.takeAll();
                    roomy.signalAll();
                } finally {
                    lock.unlock();
                }
                write(batch);
            }
        } finally {
            stopped.countDown();
        }
    }

    /** Stops taking acks once those waiting are written; waits up to {@code wait} for that. */
    boolean close(Duration wait) throws InterruptedException {
        lock.lock();
        try {
            closed = true;
            gathered.signal();
            roomy.signalAll();
        } finally {
            lock.unlock();
        }
        return stopped.await(wait.toMillis(), TimeUnit.MILLISECONDS);
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
