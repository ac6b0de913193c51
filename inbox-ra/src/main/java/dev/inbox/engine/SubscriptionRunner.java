package dev.inbox.engine;

import dev.inbox.engine.form.Form;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
 * Runs one subscription: claim loops that keep a local buffer of claimed rows filled, {@code workers}
 * threads that work deliveries from it through the {@link Deliverer}, and what the claim form runs
 * beside them (the lease form's keeper and ack writer).
 *
 * <p>The subscription holds at most {@code workers + prefetch} rows at once, in work or waiting in
 * the buffer (prefetch defaults to the workers, at most the batch size); a claim starts when at
 * least half of the waiting room is free and takes up to a batch of what is free, so workers
 * seldom wait for a claim. Enough claim loops run to keep
 * the room filled. A batch handler's claim is one unit of work, and its room is counted in units
 * (one waits beside those in work). Claims that keep a connection until their rows settle are
 * capped as the form says. Where the form claims on the worker ({@link Form#claimsOnWorker}), each
 * worker is a claim loop that works the row it claimed itself, and nothing waits in the buffer.
 */
final class SubscriptionRunner {
    private static final System.Logger LOG = System.getLogger(SubscriptionRunner.class.getName());
    /** Put behind the last unit at shutdown: a worker that takes it stops. */
    private static final Unit LAST = new Unit(List.of(), null);

    private final String queue;
    private final String table;
    private final Form form;
    private final Deliverer<?> deliverer;
    private final RunnerSettings settings;
    private final Clock clock;
    private final BrokerListener listener;
    private final boolean batches;
    /** True when each worker claims for itself and works what it claimed on its own thread. */
    private final boolean claimsOnWorker;
    private final int claimLoops;
    /** The most rows one claim takes. */
    private final int batch;
    /** The free room that starts a claim (rows, or units for a batch handler). */
    private final int claimAt;

    private final WakeSignal wake = new WakeSignal();
    private final FailureLog claimFailures;
    /** Room for rows (units for a batch handler) in work or waiting in the buffer. */
    private final Semaphore room;
    /** Claims whose rows are not all done, as many as the form lets hold rows at once. */
    private final Semaphore openClaims;
    private final BlockingQueue<Unit> ready = new LinkedBlockingQueue<>();
    private final Set<InFlight> inWork = ConcurrentHashMap.newKeySet();
    private final CountDownLatch loopsDone;
    private final AtomicInteger rowsReleased = new AtomicInteger();
    /** Workers inside a claim that may yet put rows in work (when the form claims on the worker). */
    private final AtomicInteger claiming = new AtomicInteger();
    private volatile boolean stopping;

    /** What one worker takes: one row, or a batch handler's whole claim, and the claim it came from. */
    private record Unit(List<InFlight> rows, ClaimHold claim) {}

    /** A claim that holds a connection: it frees its place among the open claims when its last row is done. */
    private final class ClaimHold {
        private final AtomicInteger open;

        ClaimHold(int rows) {
            open = new AtomicInteger(rows);
        }

        void done(int rows) {
            if (open.addAndGet(-rows) == 0) {
                openClaims.release();
            }
        }
    }

    SubscriptionRunner(String queue, String table, Form form, Deliverer<?> deliverer, RunnerSettings settings,
            boolean batches, Clock clock, BrokerListener listener) {
        this.batches = batches;
        this.queue = queue;
        this.table = table;
        this.form = form;
        this.deliverer = deliverer;
        this.settings = settings;
        this.clock = clock;
        this.listener = listener;
        int workers = settings.workers();
        this.batch = form.rowsPerClaim(settings.batchSize());
        this.claimsOnWorker = form.claimsOnWorker();
        // By default at most one row waits per worker: enough to hide a claim's round trip, and few
        // held back from other processes behind a slow handler.
        int ahead = claimsOnWorker ? 0 : settings.prefetch() >= 0 ? settings.prefetch() : Math.min(batch, workers);
        int held = batches ? workers + 1 : workers + ahead;
        this.room = new Semaphore(held);
        this.claimAt = batches ? 1 : Math.max(1, Math.min(batch, ahead / 2));
        // Enough claims in flight to fill the room (one claims while another's rows are handed out),
        // one per worker at most.
        this.claimLoops = claimsOnWorker ? workers
                : batches ? 1 : Math.max(1, Math.min(workers, (workers + ahead + batch - 1) / batch));
        this.openClaims = new Semaphore(form.claimsAtOnce(workers, held));
        this.loopsDone = new CountDownLatch(claimLoops);
        this.claimFailures = new FailureLog(LOG, "queue " + queue + ": claiming from table " + table);
    }

    /** Claim loops running at once: enough that claims of a batch each feed every worker. */
    int claimLoops() {
        return claimLoops;
    }

    void start(Threads threads) {
        if (claimsOnWorker) {
            form.start(threads, "inbox-" + queue, inWork);
            for (int i = 1; i <= claimLoops; i++) {
                boolean polls = i == 1;
                threads.start("inbox-" + queue + "-worker-" + i, () -> claimLoop(polls));
            }
            return;
        }
        for (int i = 1; i <= claimLoops; i++) {
            boolean polls = i == 1;
            threads.start("inbox-" + queue + "-claim" + (claimLoops > 1 ? "-" + i : ""), () -> claimLoop(polls));
        }
        form.start(threads, "inbox-" + queue, inWork);
        for (int i = 1; i <= settings.workers(); i++) {
            startWorker(threads, "inbox-" + queue + "-worker-" + i);
        }
    }

    /** A worker, replaced by a new one if it dies for a reason outside any handler. */
    private void startWorker(Threads threads, String name) {
        threads.start(name, () -> {
            try {
                workerLoop();
            } catch (Throwable e) {
                if (stopping) {
                    return;
                }
                LOG.log(Level.ERROR, "queue " + queue + ": worker " + name + " died; a new one takes its place", e);
                startWorker(threads, name);
            }
        });
    }

    void wake() {
        wake.wake();
    }

    /**
     * Claims while there is room. The first loop polls when idle and the others seldom: a loop whose
     * claim came back full passes a wake on, so they join at once while rows keep coming.
     */
    private void claimLoop(boolean polls) {
        OutageBackoff backoff = new OutageBackoff();
        Duration idle = polls ? settings.pollInterval() : settings.pollInterval().multipliedBy(claimLoops);
        try {
            while (!stopping) {
                int taken = takeRoom();
                try {
                    openClaims.acquire();
                } catch (InterruptedException e) {
                    room.release(taken);
                    throw e;
                }
                if (stopping) {
                    giveBack(taken);
                    break;
                }
                wake.clear();
                int wanted = batches ? batch : taken;
                List<InFlight> claimed;
                try {
                    claimed = claimsOnWorker ? claimAndWork(taken) : form.claim(clock.instant(), wanted);
                    backoff.succeeded();
                } catch (Throwable e) {
                    giveBack(taken);
                    listener.databaseFailed(queue, "claim", e instanceof Exception x ? x
                            : new IllegalStateException(e));
                    claimFailures.failed(() -> Redaction.redact(String.valueOf(e.getMessage())));
                    wake.await(backoff.failed());
                    continue;
                }
                claimFailures.succeeded();
                if (!claimsOnWorker) {
                    dispatch(claimed, taken);
                } else if (claimed.isEmpty()) {
                    giveBack(taken);
                }
                if (claimed.isEmpty()) {
                    if (!stopping) {
                        // Nothing due: wait for a wake or the next poll. A short claim claims again at once,
                        // since rows settled elsewhere while it ran (advisory) leave it short with more due.
                        wake.await(idle);
                    }
                } else if (claimed.size() == wanted && claimLoops > 1) {
                    wake.wake(); // more may be due: another loop claims beside this one
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            loopsDone.countDown();
        }
    }

    /**
     * Claims on this thread inside the application's context and works what was claimed here, in
     * the same context entry (entered again, it could suspend the transaction the claim began). Throws
     * only what the claim threw; the claimed rows' room is given back once they are worked.
     */
    private List<InFlight> claimAndWork(int roomTaken) throws Exception {
        List<List<InFlight>> claimed = new ArrayList<>(1);
        Exception[] failed = new Exception[1];
        claiming.incrementAndGet();
        try {
            inHandlerContext(claimed, () -> {
                List<InFlight> rows;
                try {
                    rows = form.claim(clock.instant(), 1);
                } catch (Exception e) {
                    failed[0] = e;
                    return;
                }
                claimed.add(rows);
                if (!rows.isEmpty()) {
                    inWork.addAll(rows);
                    claiming.decrementAndGet();
                    workHere(rows, roomTaken);
                }
            });
        } finally {
            if (claimed.isEmpty() || claimed.get(0).isEmpty()) {
                claiming.decrementAndGet();
            }
        }
        if (failed[0] != null) {
            throw failed[0];
        }
        return claimed.isEmpty() ? List.of() : claimed.get(0);
    }

    /**
     * Runs {@code work} in the application's context. What the context throws once rows were
     * claimed and worked inside it is logged, not thrown: their room is given back already, and
     * the claim loop would give it back again.
     */
    private void inHandlerContext(List<List<InFlight>> claimed, Runnable work) {
        try {
            deliverer.inHandlerContext(work);
        } catch (RuntimeException e) {
            if (claimed.isEmpty() || claimed.get(0).isEmpty()) {
                throw e;
            }
            LOG.log(Level.WARNING, "queue " + queue + ": the application's context failed after a delivery", e);
        }
    }

    /** Works rows this thread claimed, then gives back their room and their claim's place. */
    private void workHere(List<InFlight> rows, int roomTaken) {
        try {
            if (stopping) {
                rows.forEach(delivery -> release(delivery, false));
            } else {
                rows.forEach(delivery -> delivery.worker(Thread.currentThread()));
                deliverSafely(rows, true);
            }
        } finally {
            rows.forEach(delivery -> delivery.worker(null));
            rows.forEach(inWork::remove);
            room.release(roomTaken);
            openClaims.release();
        }
    }

    /** Waits for room to start a claim, then takes up to a batch of it; returns the room taken. */
    private int takeRoom() throws InterruptedException {
        room.acquire(claimAt);
        int taken = claimAt;
        int most = batches ? 1 : batch;
        while (taken < most && room.tryAcquire()) {
            taken++;
        }
        return taken;
    }

    /** Gives back the room and the open claim's place of a claim that holds no rows. */
    private void giveBack(int roomTaken) {
        room.release(roomTaken);
        openClaims.release();
    }

    /** Puts claimed rows in the buffer, and gives back the room they did not fill. */
    private void dispatch(List<InFlight> claimed, int roomTaken) {
        if (claimed.isEmpty()) {
            giveBack(roomTaken);
            return;
        }
        inWork.addAll(claimed);
        ClaimHold hold = new ClaimHold(claimed.size());
        if (batches) {
            ready.add(new Unit(claimed, hold));
        } else {
            room.release(roomTaken - claimed.size());
            for (InFlight delivery : claimed) {
                ready.add(new Unit(List.of(delivery), hold));
            }
        }
    }

    private void workerLoop() {
        try {
            while (true) {
                Unit unit = ready.take();
                if (unit == LAST) {
                    return;
                }
                List<InFlight> rows = unit.rows();
                try {
                    if (stopping) {
                        rows.forEach(delivery -> release(delivery, false));
                    } else {
                        List<InFlight> live = notExpired(rows);
                        if (!live.isEmpty()) {
                            live.forEach(delivery -> delivery.worker(Thread.currentThread()));
                            deliverSafely(live, false);
                        }
                    }
                } finally {
                    rows.forEach(delivery -> delivery.worker(null));
                    rows.forEach(inWork::remove);
                    room.release(batches ? 1 : rows.size());
                    unit.claim().done(rows.size());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Works a unit; a failure outside the handler (which the deliverer already settles) gives back
     * the rows left unsettled, and the worker goes on.
     */
    private void deliverSafely(List<InFlight> rows, boolean inHandlerContext) {
        try {
            if (inHandlerContext) {
                deliverer.deliverHere(rows, () -> stopping);
            } else {
                deliverer.deliver(rows, () -> stopping);
            }
        } catch (Throwable e) {
            LOG.log(Level.ERROR, "queue " + queue + ": working rows " + rows + " failed outside the handler; the rows"
                    + " not settled go back to the queue and the worker goes on", e);
            rows.forEach(delivery -> release(delivery, true));
        }
    }

    /**
     * The rows still ours. A row whose lease ran out while it waited in the buffer (its keeper
     * could not extend it) may be another claim's by now, so it is not handled here.
     */
    private List<InFlight> notExpired(List<InFlight> rows) {
        Instant now = clock.instant();
        List<InFlight> live = null;
        for (int i = 0; i < rows.size(); i++) {
            InFlight delivery = rows.get(i);
            boolean expired;
            synchronized (delivery) {
                expired = delivery.claim().expired(delivery, now);
                if (expired) {
                    delivery.markSettled();
                }
            }
            if (expired) {
                LOG.log(Level.DEBUG, "queue {0}: the lease of row {1} ran out before a worker took it; not handled",
                        queue, String.valueOf(delivery.id()));
                if (live == null) {
                    live = new ArrayList<>(rows.subList(0, i));
                }
            } else if (live != null) {
                live.add(delivery);
            }
        }
        return live == null ? rows : live;
    }

    private boolean release(InFlight delivery, boolean started) {
        boolean released = deliverer.release(delivery, started);
        if (released) {
            rowsReleased.incrementAndGet();
        }
        return released;
    }

    // ---- shutdown ----

    /** Stops the claim loops, and waits for a claim in progress to finish. */
    void stopClaiming(Duration wait) throws InterruptedException {
        stopping = true;
        wake.close();
        // Claim loops waiting for room or for an open claim's place see the stop.
        room.release(claimLoops * Math.max(claimAt, 1));
        openClaims.release(claimLoops);
        if (claimsOnWorker) {
            // The loops are the workers: the drain waits for their deliveries; here only for claims in progress.
            long deadline = System.nanoTime() + wait.toNanos();
            while (claiming.get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            return;
        }
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
            if (release(delivery, worker != null) && worker != null) {
                cutOff++;
                LOG.log(Level.WARNING, "queue {0}: the handler of row {1} was still running at the drain timeout;"
                        + " its delivery is dropped and the row released", queue, String.valueOf(delivery.id()));
            }
        }
        Duration wait = Duration.ofNanos(Math.max(0, deadline - System.nanoTime())).plusSeconds(5);
        if (!form.close(wait)) {
            LOG.log(Level.WARNING, "queue {0}: the acks handed over were not all written within {1} ms", queue,
                    wait.toMillis());
        }
        return cutOff;
    }

    /**
     * Once the claims have stopped: stops keeping leases, and releases the locks of deliveries in
     * work (advisory form); returns how many.
     */
    int stopForm() {
        return form.stop();
    }

    /** Deliveries claimed and not yet settled. */
    int inWork() {
        return inWork.size();
    }

    int rowsReleased() {
        return rowsReleased.get();
    }

    /** Sessions the form closed instead of giving them back, with their locks. */
    int connectionsClosed() {
        return form.connectionsClosed();
    }
}
