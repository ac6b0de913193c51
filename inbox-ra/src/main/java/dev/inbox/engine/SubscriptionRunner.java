package dev.inbox.engine;

import com.fasterxml.jackson.databind.ObjectReader;
import dev.inbox.Handler;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.engine.form.Form;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one subscription: a claim loop that takes due rows while a worker is free, {@code workers}
 * threads that decode, handle and settle, and in the lease form a keeper that extends every lease
 * in work each half lease.
 */
final class SubscriptionRunner<T> {
    private static final System.Logger LOG = System.getLogger(SubscriptionRunner.class.getName());
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private final String queue;
    private final String table;
    private final Form form;
    private final Handler<T> handler;
    private final ObjectReader reader;
    private final Connections connections;
    private final Clock clock;
    private final BrokerListener listener;
    private final int workers;
    private final int batchSize;
    private final Duration pollInterval;
    private final Duration lease;
    private final int maxAttempts;
    private final boolean deadLetters;

    /** Put behind the last delivery at shutdown: a worker that takes it stops. */
    private static final InFlight LAST = new InFlight("", 0, 0, null, java.util.Map.of(), null);

    private final WakeSignal wake = new WakeSignal();
    private final WakeSignal keeperWake = new WakeSignal();
    private final Semaphore freeWorkers;
    private final BlockingQueue<InFlight> ready = new LinkedBlockingQueue<>();
    private final Set<InFlight> inWork = ConcurrentHashMap.newKeySet();
    private final CountDownLatch loopsDone;
    private final AtomicInteger rowsReleased = new AtomicInteger();
    private volatile boolean stopping;
    private volatile boolean keeperPaused;
    private volatile Thread claimThread;
    private volatile Thread keeperThread;

    SubscriptionRunner(String queue, String table, Form form, Handler<T> handler, ObjectReader reader,
            Connections connections, Clock clock, BrokerListener listener, int workers, int batchSize,
            Duration pollInterval, Duration lease, int maxAttempts, boolean deadLetters) {
        this.queue = queue;
        this.table = table;
        this.form = form;
        this.handler = handler;
        this.reader = reader;
        this.connections = connections;
        this.clock = clock;
        this.listener = listener;
        this.workers = workers;
        this.batchSize = batchSize;
        this.pollInterval = pollInterval;
        this.lease = lease;
        this.maxAttempts = maxAttempts;
        this.deadLetters = deadLetters;
        this.freeWorkers = new Semaphore(workers);
        this.loopsDone = new CountDownLatch(form.keepsLeases() ? 2 : 1);
    }

    void start(Threads threads) {
        threads.start("inbox-" + queue + "-claim", this::claimLoop);
        if (form.keepsLeases()) {
            threads.start("inbox-" + queue + "-keeper", this::keeperLoop);
        }
        for (int i = 1; i <= workers; i++) {
            threads.start("inbox-" + queue + "-worker-" + i, this::workerLoop);
        }
    }

    String queue() {
        return queue;
    }

    void wake() {
        wake.wake();
    }

    // ---- claim loop ----

    private void claimLoop() {
        claimThread = Thread.currentThread();
        Duration backoff = Duration.ZERO;
        try {
            while (!stopping) {
                freeWorkers.acquire();
                int wanted = 1 + freeWorkers.drainPermits();
                if (wanted > batchSize) {
                    freeWorkers.release(wanted - batchSize);
                    wanted = batchSize;
                }
                if (stopping) {
                    freeWorkers.release(wanted);
                    break;
                }
                wake.clear();
                List<InFlight> claimed;
                try (Connection connection = connections.get()) {
                    claimed = form.claim(connection, clock.instant(), wanted);
                    backoff = Duration.ZERO;
                } catch (SQLException | RuntimeException e) {
                    freeWorkers.release(wanted);
                    backoff = backoff.isZero() ? Duration.ofMillis(100) : WakeSignal.min(backoff.multipliedBy(2), MAX_BACKOFF);
                    failed("claim", e, backoff);
                    sleep(backoff);
                    continue;
                }
                freeWorkers.release(wanted - claimed.size());
                for (InFlight delivery : claimed) {
                    inWork.add(delivery);
                    ready.add(delivery);
                }
                if (stopping) {
                    break;
                }
                if (claimed.size() < wanted) {
                    // Fewer rows than free workers: nothing more is due until a wake or the next poll.
                    wake.await(pollInterval);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            loopsDone.countDown();
        }
    }

    private void failed(String what, Exception e, Duration backoff) {
        listener.databaseFailed(queue, what, e);
        LOG.log(Level.WARNING, "queue {0}: {1} on table {2} failed, trying again in {3} ms: {4}", queue, what, table,
                backoff.toMillis(), Redaction.redact(String.valueOf(e.getMessage())));
    }

    private void sleep(Duration d) throws InterruptedException {
        if (!stopping) {
            wake.await(d);
        }
    }

    // ---- keeper ----

    private void keeperLoop() {
        keeperThread = Thread.currentThread();
        Duration half = lease.dividedBy(2);
        try {
            while (!stopping) {
                keeperWake.await(half);
                if (stopping) {
                    break;
                }
                if (!keeperPaused && !inWork.isEmpty()) {
                    extendAll();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            loopsDone.countDown();
        }
    }

    private void extendAll() {
        try (Connection connection = connections.get()) {
            for (InFlight delivery : inWork) {
                synchronized (delivery) {
                    if (delivery.settled() || stopping) {
                        continue;
                    }
                    if (!form.extend(connection, delivery, clock.instant())) {
                        LOG.log(Level.WARNING, "queue {0}: the lease of row {1} of table {2} was lost before the"
                                + " keeper could extend it; its settlement will fail with LEASE_LOST", queue,
                                delivery.id(), table);
                    }
                }
            }
        } catch (SQLException | RuntimeException e) {
            failed("lease extension", e, lease.dividedBy(2));
        }
    }

    /** Stops extending leases, as when the database is out of the keeper's reach. For tests. */
    void pauseKeeper(boolean paused) {
        keeperPaused = paused;
    }

    // ---- workers ----

    private void workerLoop() {
        try {
            while (true) {
                InFlight delivery = ready.take();
                if (delivery == LAST) {
                    return;
                }
                try {
                    if (stopping) {
                        release(delivery);
                    } else {
                        delivery.worker(Thread.currentThread());
                        deliver(delivery);
                    }
                } finally {
                    delivery.worker(null);
                    inWork.remove(delivery);
                    freeWorkers.release();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void deliver(InFlight delivery) {
        if (maxAttempts > 0 && delivery.attempt() > maxAttempts) {
            // Its last attempts ended without a settlement (a crash spends an attempt too).
            finish(delivery, Outcome.drop("attempts exhausted: attempt " + delivery.attempt() + " of "
                    + maxAttempts + " began after the earlier ones ended without settling"));
            return;
        }
        T payload;
        try {
            if (delivery.payload() == null) {
                throw new IOException("the payload column is NULL");
            }
            payload = reader.readValue(delivery.payload());
        } catch (IOException e) {
            LOG.log(Level.WARNING, "queue {0}: row {1} of table {2} has a payload that cannot be decoded into {3},"
                    + " so it is {4}: {5}", queue, delivery.id(), table, reader.getValueType().toCanonical(),
                    deadLetters ? "dead-lettered" : "dropped", e.getMessage());
            finish(delivery, Outcome.drop("payload cannot be decoded into " + reader.getValueType().toCanonical()
                    + ": " + e.getMessage()));
            return;
        }
        Outcome outcome;
        String failure = null;
        try {
            outcome = handler.handle(payload, delivery);
            if (outcome == null) {
                outcome = Outcome.ack();
            }
        } catch (InterruptedException e) {
            if (stopping) {
                return; // cut off at the drain timeout: shutdown released the row
            }
            Thread.currentThread().interrupt();
            outcome = Outcome.retry();
            failure = e.toString();
        } catch (Exception | LinkageError | AssertionError e) {
            LOG.log(Level.WARNING, () -> "queue " + queue + ": the handler failed on row " + delivery.id()
                    + " (attempt " + delivery.attempt() + "); the row goes back for another attempt", e);
            outcome = Outcome.retry();
            failure = e.toString();
        }
        if (outcome.kind() == Outcome.Kind.RETRY && maxAttempts > 0 && delivery.attempt() >= maxAttempts) {
            outcome = Outcome.drop((failure != null ? failure : "the handler asked for a retry") + " on attempt "
                    + delivery.attempt() + " of " + maxAttempts);
        }
        finish(delivery, outcome);
    }

    /** Settles, sending a drop to the dead-letter table where the subscription declares one. */
    private void finish(InFlight delivery, Outcome outcome) {
        if (outcome.kind() == Outcome.Kind.DROP && deadLetters) {
            String error = outcome.reason() != null ? outcome.reason() : "dropped by the handler";
            settle(delivery, outcome, (connection, now) -> form.deadLetter(connection, delivery, error, now));
        } else {
            settle(delivery, outcome, (connection, now) -> form.settle(connection, delivery, outcome, now));
        }
    }

    /** One settlement statement (or transaction) of a delivery. */
    @FunctionalInterface
    private interface Settlement {
        void run(Connection connection, java.time.Instant now) throws SQLException;
    }

    private void settle(InFlight delivery, Outcome outcome, Settlement settlement) {
        synchronized (delivery) {
            if (delivery.settled()) {
                return; // released by shutdown after a cut-off
            }
            try (Connection connection = connections.get()) {
                settlement.run(connection, clock.instant());
                delivery.markSettled();
                listener.settled(queue, delivery.id(), delivery.attempt(), outcome);
            } catch (InboxException e) {
                delivery.markSettled();
                LOG.log(Level.WARNING, "{0}", e.getMessage());
                listener.settlementFailed(queue, delivery.id(), outcome, e);
            } catch (SQLException | RuntimeException e) {
                // The row stays claimed until its claim ends, as after a crash.
                delivery.markSettled();
                InboxException error = new InboxException(InboxException.Kind.DATABASE, "queue " + queue + ": the "
                        + outcome + " of row " + delivery.id() + " of table " + table + " failed; the row returns"
                        + " when its claim ends: " + Redaction.redact(e.getMessage()), e);
                LOG.log(Level.WARNING, "{0}", error.getMessage());
                listener.settlementFailed(queue, delivery.id(), outcome, error);
            }
        }
    }

    /** Gives a claimed row back at once: it was claimed but will not be handled here. */
    private boolean release(InFlight delivery) {
        synchronized (delivery) {
            if (delivery.settled()) {
                return false;
            }
            delivery.markSettled();
            try (Connection connection = connections.get()) {
                if (form.release(connection, delivery)) {
                    rowsReleased.incrementAndGet();
                    return true;
                }
            } catch (SQLException | RuntimeException e) {
                LOG.log(Level.WARNING, "queue {0}: row {1} of table {2} could not be released and returns when its"
                        + " claim ends: {3}", queue, delivery.id(), table, Redaction.redact(e.getMessage()));
            }
            return false;
        }
    }

    // ---- shutdown ----

    /** Stops the claim loop and the keeper, and waits for a claim in progress to finish. */
    void stopClaiming(Duration wait) throws InterruptedException {
        stopping = true;
        wake.wake();
        keeperWake.wake();
        freeWorkers.release(workers + batchSize);
        if (!loopsDone.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
            LOG.log(Level.WARNING, "queue {0}: the claim loop did not stop within {1} ms", queue, wait.toMillis());
        }
        // Rows claimed but not started are released by the workers, which then stop.
        for (int i = 0; i < workers; i++) {
            ready.add(LAST);
        }
    }

    /**
     * Waits for handlers in work until {@code deadline} (nanoTime); rows not yet started are
     * released at once, handlers still running at the deadline are cut off and their rows released.
     * Returns the handlers cut off.
     */
    int drain(long deadline) throws InterruptedException {
        while (!inWork.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        int cutOff = 0;
        for (InFlight delivery : inWork) {
            Thread worker = delivery.worker();
            if (release(delivery)) {
                if (worker != null) {
                    cutOff++;
                    LOG.log(Level.WARNING, "queue {0}: the handler of row {1} was still running at the drain"
                            + " timeout; its delivery is dropped and the row released", queue, delivery.id());
                    worker.interrupt();
                }
            }
        }
        return cutOff;
    }

    int rowsReleased() {
        return rowsReleased.get();
    }

    int inWork() {
        return inWork.size();
    }
}
