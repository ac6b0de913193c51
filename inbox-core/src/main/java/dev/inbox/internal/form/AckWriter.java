package dev.inbox.internal.form;

import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.Transactions;
import dev.inbox.internal.task.SerialTask;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.Threads;
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
 *
 * <p>Where the form's claims carry acks ({@link #takeForClaim}), the writer is not woken for each
 * first ack: the acks wait for the next claim, which is coming while rows are worked. Once the
 * subscription goes quiet (no claim runs as a worker ends its run, {@link #writeUncarried}), the
 * writer writes what waits; a timer has it write acks that waited {@link #CARRY_WAIT} all the same.
 * A drain so writes its acks in its claims' round trips, and neither the writer's thread nor the
 * timer's is woken for each batch of acks.
 */
final class AckWriter {
    private final AckBatch waiting;
    private final ConnectionSource connections;
    private final Dialect dialect;
    private final Reports reports;
    private final int limit;
    /** True where claims take the acks waiting ({@link #takeForClaim}): the writer writes those no claim took. */
    private final boolean claimsCarry;

    private final ReentrantLock lock = new ReentrantLock();
    private SerialTask writer;
    private Threads threads;
    private boolean closed;
    /** When the first of the acks waiting came (System.nanoTime()), where claims carry acks. */
    private long firstWaiting;
    /** True while the timer's look at the acks waiting is scheduled. */
    private boolean looking;

    /**
     * How long acks wait for a claim to carry them before the writer writes them, should the
     * subscription not go quiet: long enough that the timer, which looks again while acks keep
     * coming, wakes a few times a second in a drain (at 5 ms its thread switched more than half as
     * often as a lone worker's), and short beside any lease.
     */
    static final Duration CARRY_WAIT = Duration.ofMillis(50);

    AckWriter(AckBatch empty, ConnectionSource connections, Dialect dialect, Reports reports, int limit,
            boolean claimsCarry) {
        this.waiting = empty;
        this.connections = connections;
        this.dialect = dialect;
        this.reports = reports;
        this.limit = limit;
        this.claimsCarry = claimsCarry;
    }

    /** Starts writing, the acks handed over before included. */
    void start(Threads threads, String name) {
        SerialTask task = new SerialTask(threads, name, this::writeWaiting);
        lock.lock();
        try {
            writer = task;
            this.threads = threads;
        } finally {
            lock.unlock();
        }
        task.signal();
    }

    /** Hands over the ack of a delivery already marked settled, so no keeper moves its token meanwhile. */
    void add(InFlight delivery, Instant now) {
        AckBatch full;
        boolean look = false;
        lock.lock();
        try {
            waiting.add(delivery, now);
            if (!closed && waiting.size() < limit) {
                if (waiting.size() == 1 && writer != null) {
                    if (!claimsCarry) {
                        writer.signal();
                    } else {
                        firstWaiting = System.nanoTime();
                        look = !looking;
                        looking = true;
                    }
                }
                full = null;
            } else {
                full = waiting.takeAll();
            }
        } finally {
            lock.unlock();
        }
        if (look) {
            try {
                threads.schedule(CARRY_WAIT, this::look);
            } catch (RuntimeException e) {
                lookFailed();
            }
        }
        if (full != null) {
            write(full);
        }
    }

    /**
     * The acks waiting, taken by a claim that writes them in its own statement ({@code claimCarryingAcks});
     * null when none wait. A claim that fails before they commit gives them back ({@link #notCarried}).
     */
    AckBatch takeForClaim() {
        lock.lock();
        try {
            return waiting.isEmpty() ? null : waiting.takeAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The subscription went quiet (no claim runs as a worker ends its run): no claim may come to
     * carry the acks waiting, so the writer writes them now.
     */
    void writeUncarried() {
        if (!claimsCarry) {
            return; // the writer was woken for the first of them
        }
        boolean waits;
        lock.lock();
        try {
            waits = !waiting.isEmpty() && writer != null;
        } finally {
            lock.unlock();
        }
        if (waits) {
            writer.signal();
        }
    }

    /**
     * Acks a claim took and did not write, its statement having failed with {@code e}: written
     * now, on the caller's thread. Where the connection failed, the server may have committed them
     * without a word back; they are reported failed, as a batch of acks whose connection failed is.
     */
    void notCarried(AckBatch batch, Exception e) {
        if (e instanceof SQLException failed && failed.getSQLState() != null && failed.getSQLState().startsWith("08")) {
            batch.fail(reports, e);
        } else {
            write(batch);
        }
    }

    /**
     * The timer's look, where claims carry acks: the writer writes the acks waiting once the
     * first has waited {@link #CARRY_WAIT}; until then the timer looks again.
     */
    private void look() {
        long waited;
        boolean again;
        lock.lock();
        try {
            if (waiting.isEmpty()) {
                looking = false;
                return;
            }
            waited = System.nanoTime() - firstWaiting;
            again = waited < CARRY_WAIT.toNanos();
            looking = again;
        } finally {
            lock.unlock();
        }
        if (!again) {
            writer.signal();
            return;
        }
        try {
            threads.schedule(CARRY_WAIT.minusNanos(waited), this::look);
        } catch (RuntimeException e) {
            lookFailed();
        }
    }

    /** No timer (the threads are stopping): the writer writes the acks waiting now. */
    private void lookFailed() {
        lock.lock();
        try {
            looking = false;
        } finally {
            lock.unlock();
        }
        writer.signal();
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
