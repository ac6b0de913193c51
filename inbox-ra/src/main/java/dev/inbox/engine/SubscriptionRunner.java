package dev.inbox.engine;

import dev.inbox.engine.form.Form;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
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
 * threads that work deliveries through the {@link Deliverer}, and in the lease form a
 * {@link LeaseKeeper}.
 */
final class SubscriptionRunner {
    private static final System.Logger LOG = System.getLogger(SubscriptionRunner.class.getName());
    /** The longest wait between claims that fail: short enough to resume soon after an outage. */
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    /** Put behind the last unit at shutdown: a worker that takes it stops. */
    private static final List<InFlight> LAST = new ArrayList<>(0);

    private final String queue;
    private final String table;
    private final Form form;
    private final Deliverer<?> deliverer;
    private final Connections connections;
    private final InboxBroker broker;
    private final RunnerSettings settings;
    private final LeaseKeeper keeper;
    private final boolean batches;

    private final WakeSignal wake = new WakeSignal();
    private final FailureLog claimFailures;
    private final Semaphore freeWorkers;
    private final BlockingQueue<List<InFlight>> ready = new LinkedBlockingQueue<>();
    private final Set<InFlight> inWork = ConcurrentHashMap.newKeySet();
    private final CountDownLatch loopsDone;
    private final AtomicInteger rowsReleased = new AtomicInteger();
    private volatile boolean stopping;

    SubscriptionRunner(InboxBroker broker, String queue, String table, Form form, Deliverer<?> deliverer,
            RunnerSettings settings, boolean batches) {
        this.batches = batches;
        this.broker = broker;
        this.queue = queue;
        this.table = table;
        this.form = form;
        this.deliverer = deliverer;
        this.connections = broker.connections();
        this.settings = settings;
        this.freeWorkers = new Semaphore(settings.workers());
        this.keeper = form.keepsLeases() ? new LeaseKeeper(queue, table, form, connections, broker.clock(),
                broker.listener(), settings.lease(), inWork) : null;
        this.loopsDone = new CountDownLatch(keeper != null ? 2 : 1);
        this.claimFailures = new FailureLog(LOG, "queue " + queue + ": claiming from table " + table);
    }

    void start(Threads threads) {
        threads.start("inbox-" + queue + "-claim", this::claimLoop);
        if (keeper != null) {
            threads.start("inbox-" + queue + "-keeper", this::keeperLoop);
        }
        for (int i = 1; i <= settings.workers(); i++) {
            threads.start("inbox-" + queue + "-worker-" + i, this::workerLoop);
        }
    }

    void wake() {
        wake.wake();
    }

    /** Stops extending leases, as a database out of the keeper's reach would. For tests. */
    void pauseKeeper(boolean paused) {
        if (keeper != null) {
            keeper.pause(paused);
        }
    }

    private void claimLoop() {
        Duration backoff = Duration.ZERO;
        try {
            while (!stopping) {
                freeWorkers.acquire();
                // A batch subscription gives one worker a whole claim; otherwise each row takes a worker.
                int free = batches ? 1 : 1 + freeWorkers.drainPermits();
                int wanted = batches ? settings.batchSize() : Math.min(free, settings.batchSize());
                int workersTaken = batches ? 1 : wanted;
                freeWorkers.release(free - workersTaken);
                if (stopping) {
                    break;
                }
                wake.clear();
                List<InFlight> claimed;
                try {
                    claimed = form.claim(connections, broker.clock().instant(), wanted);
                    backoff = Duration.ZERO;
                } catch (SQLException | RuntimeException e) {
                    freeWorkers.release(workersTaken);
                    backoff = backoff.isZero() ? Duration.ofMillis(100)
                            : WakeSignal.min(backoff.multipliedBy(2), MAX_BACKOFF);
                    broker.listener().databaseFailed(queue, "claim", e);
                    claimFailures.failed(() -> Redaction.redact(String.valueOf(e.getMessage())));
                    wake.await(backoff);
                    continue;
                }
                claimFailures.succeeded();
                inWork.addAll(claimed);
                if (batches) {
                    if (claimed.isEmpty()) {
                        freeWorkers.release();
                    } else {
                        ready.add(claimed);
                    }
                } else {
                    freeWorkers.release(wanted - claimed.size());
                    claimed.forEach(delivery -> ready.add(List.of(delivery)));
                }
                if (claimed.size() < wanted && !stopping) {
                    // Fewer rows than free workers: nothing more is due until a wake or the next poll.
                    wake.await(settings.pollInterval());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            loopsDone.countDown();
        }
    }

    private void keeperLoop() {
        try {
            keeper.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            loopsDone.countDown();
        }
    }

    private void workerLoop() {
        try {
            while (true) {
                List<InFlight> unit = ready.take();
                if (unit == LAST) {
                    return;
                }
                try {
                    if (stopping) {
                        unit.forEach(this::release);
                    } else {
                        unit.forEach(delivery -> delivery.worker(Thread.currentThread()));
                        deliverer.deliver(unit, () -> stopping);
                    }
                } finally {
                    unit.forEach(delivery -> delivery.worker(null));
                    unit.forEach(inWork::remove);
                    freeWorkers.release();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean release(InFlight delivery) {
        boolean released = deliverer.release(delivery);
        if (released) {
            rowsReleased.incrementAndGet();
        }
        return released;
    }

    // ---- shutdown ----

    /** Stops the claim loop and the keeper, and waits for a claim in progress to finish. */
    void stopClaiming(Duration wait) throws InterruptedException {
        stopping = true;
        wake.wake();
        if (keeper != null) {
            keeper.stop();
        }
        freeWorkers.release(settings.workers() + settings.batchSize());
        if (!loopsDone.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
            LOG.log(Level.WARNING, "queue {0}: the claim loop did not stop within {1} ms", queue, wait.toMillis());
        }
        // Rows claimed but not started are released by the workers, which then stop.
        for (int i = 0; i < settings.workers(); i++) {
            ready.add(LAST);
        }
    }

    /**
     * Waits for handlers in work until {@code deadline} (nanoTime); handlers still running then are
     * cut off and their rows released. Returns the handlers cut off.
     */
    int drain(long deadline) throws InterruptedException {
        while (!inWork.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        int cutOff = 0;
        for (InFlight delivery : inWork) {
            Thread worker = delivery.worker();
            if (worker != null) {
                // Interrupt first: a handler inside a SQLite transaction holds the lock the release needs.
                worker.interrupt();
            }
            if (release(delivery) && worker != null) {
                cutOff++;
                LOG.log(Level.WARNING, "queue {0}: the handler of row {1} was still running at the drain timeout;"
                        + " its delivery is dropped and the row released", queue, delivery.id());
            }
        }
        return cutOff;
    }

    /** Advisory lock form: releases the locks of deliveries in work; returns how many. */
    int releaseLocks() {
        return form.releaseLocks();
    }

    /** Deliveries claimed and not yet settled. */
    int inWork() {
        return inWork.size();
    }

    int rowsReleased() {
        return rowsReleased.get();
    }
}
