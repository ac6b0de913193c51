package dev.inbox.engine;

import dev.inbox.InboxException;
import dev.inbox.engine.form.ConnectionSource;
import dev.inbox.engine.form.Form;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes the acks of a subscription's workers together, where the claim form allows it
 * ({@link Form#acksTogether()}). A worker hands its ack over and takes its next row; one thread
 * writes whatever gathered meanwhile as one statement batch in one transaction, so acks share
 * round trips and commits. A worker waits only while {@code limit} acks are already waiting.
 * Each ack is reported once written: settled, lease lost, or failed (its row then returns when
 * its lease ends, as after a crash).
 */
final class AckBatcher {
    /** What becomes of the acks once written. */
    interface Reports {
        void acked(InFlight delivery);

        void lost(InFlight delivery, InboxException error);

        void failed(InFlight delivery, Exception error);
    }

    private final Form form;
    private final ConnectionSource connections;
    private final Clock clock;
    private final Reports reports;
    private final int limit;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition gathered = lock.newCondition();
    private final Condition roomy = lock.newCondition();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private List<InFlight> waiting = new ArrayList<>();
    private List<InFlight> spare = new ArrayList<>();
    private boolean closed;

    AckBatcher(Form form, ConnectionSource connections, Clock clock, Reports reports, int limit) {
        this.form = form;
        this.connections = connections;
        this.clock = clock;
        this.reports = reports;
        this.limit = limit;
    }

    /**
     * Hands over the ack of a delivery already marked settled. Once closed, the ack is written
     * here and now, on the caller's thread.
     */
    void add(InFlight delivery) {
        lock.lock();
        try {
            while (!closed && waiting.size() >= limit) {
                // A worker never gives up its ack: the writer always makes room, or fails the batch and moves on.
                roomy.awaitUninterruptibly();
            }
            if (!closed) {
                waiting.add(delivery);
                if (waiting.size() == 1) {
                    gathered.signal();
                }
                return;
            }
        } finally {
            lock.unlock();
        }
        write(List.of(delivery));
    }

    /** The writer: runs until closed, writing what is left first. */
    void run() {
        try {
            while (true) {
                List<InFlight> batch;
                lock.lock();
                try {
                    while (waiting.isEmpty() && !closed) {
                        gathered.awaitUninterruptibly();
                    }
                    if (waiting.isEmpty()) {
                        return;
                    }
                    batch = waiting;
                    waiting = spare;
                    roomy.signalAll();
                } finally {
                    lock.unlock();
                }
                write(batch);
                batch.clear();
                spare = batch; // only this thread touches spare
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

    private void write(List<InFlight> batch) {
        List<InboxException> lost;
        try {
            lost = ackAll(batch);
        } catch (SQLException | RuntimeException e) {
            for (InFlight delivery : batch) {
                reports.failed(delivery, e);
            }
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            if (lost.get(i) == null) {
                reports.acked(batch.get(i));
            } else {
                reports.lost(batch.get(i), lost.get(i));
            }
        }
    }

    private List<InboxException> ackAll(List<InFlight> batch) throws SQLException {
        try {
            return form.ackAll(connections, batch, clock.instant());
        } catch (SQLException e) {
            // A deadlock or serialization failure rolled the whole batch back: once more, then it fails.
            if (e.getSQLState() == null || !e.getSQLState().startsWith("40")) {
                throw e;
            }
            return form.ackAll(connections, batch, clock.instant());
        }
    }
}
