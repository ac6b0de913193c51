package dev.inbox.internal.runner;

import dev.inbox.internal.form.InFlight;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A subscription's workers and the buffer of claimed rows they take units from (one row, or a
 * batch handler's whole claim). Workers run while the buffer holds units and end when it is empty;
 * one run dry while claims come back full claims on its own thread first ({@link Next#whenDry}), as
 * a plain loop would. A thread wake costs a context switch on each side, so workers start only
 * where those running would not get through the units waiting within a millisecond at the pace
 * units take ({@link WorkPace}); the watch wakes workers for a unit that has waited {@link #WATCH}
 * all the same (a handler that kept up so far runs long).
 */
final class Workers {
    private static final System.Logger LOG = System.getLogger(Workers.class.getName());
    /** How long a unit may wait, with no worker woken for it, before the watch wakes one. */
    static final Duration WATCH = Duration.ofMillis(10);

    /** What a worker does between units: the runner's part. */
    interface Next {
        /** A unit is done and its room free, on the worker's thread: who claims next. */
        void unitDone();

        /** The buffer is empty: claims on this thread where more rows are due; true when it did. */
        boolean whenDry();

        /** The worker ends its run: no unit is left for it. */
        void ended();
    }

    /**
     * What one worker takes: one row, or a batch handler's whole claim, the claim it came from, and
     * when it was put in the buffer (System.nanoTime()).
     */
    private record Unit(List<InFlight> rows, Capacity.Hold claim, long queuedAt) {}

    private final String queue;
    private final int most;
    private final boolean batches;
    private final Deliverer<?> deliverer;
    private final Clock clock;
    private final Capacity capacity;
    private final Collection<InFlight> inWork;
    private final BlockingQueue<Unit> ready = new LinkedBlockingQueue<>();
    private final WorkPace pace = new WorkPace();
    private final AtomicInteger running = new AtomicInteger();
    /** True while the watch is scheduled: units wait that no worker was woken for. */
    private final AtomicBoolean watching = new AtomicBoolean();
    private final AtomicInteger released = new AtomicInteger();
    /** Workers whose handler outran the handler timeout and has not returned: they count no more among the most. */
    private final AtomicInteger stuck = new AtomicInteger();
    private volatile boolean stopping;
    private Threads threads;
    private Next next;

    /**
     * @param most    the most workers running at once
     * @param batches true where a unit is a batch handler's whole claim
     * @param inWork  the deliveries claimed and not yet done, which the lease keeper extends
     */
    Workers(String queue, int most, boolean batches, Deliverer<?> deliverer, Clock clock, Capacity capacity,
            Collection<InFlight> inWork) {
        this.queue = queue;
        this.most = most;
        this.batches = batches;
        this.deliverer = deliverer;
        this.clock = clock;
        this.capacity = capacity;
        this.inWork = inWork;
    }

    void start(Threads pool, Next between) {
        this.threads = pool;
        this.next = between;
    }

    /** Workers running now. */
    int running() {
        return running.get();
    }

    /** True while no unit waits in the buffer. */
    boolean dry() {
        return ready.isEmpty();
    }

    /** True while the workers running get through the units waiting within the pace's budget. */
    boolean keepUp() {
        return pace.keepsUp(ready.size(), running.get());
    }

    /** Puts claimed rows in the buffer, held by {@code claim}, and starts workers for them. */
    void dispatch(List<InFlight> claimed, Capacity.Hold claim) {
        inWork.addAll(claimed);
        long now = System.nanoTime();
        if (batches) {
            ready.add(new Unit(claimed, claim, now));
        } else {
            for (InFlight delivery : claimed) {
                ready.add(new Unit(List.of(delivery), claim, now));
            }
        }
        startSome();
    }

    /**
     * Starts workers for the units waiting, up to the most, as many as it takes for the workers
     * running to keep up with them: they go on with the units, and claim again when they run dry,
     * where a woken thread would cost more than it saves. Until a unit has been worked, a worker
     * starts for each unit.
     */
    private void startSome() {
        while (!ready.isEmpty()) {
            int now = running.get();
            if (now >= most + stuck.get()) {
                return;
            }
            if (pace.keepsUp(ready.size(), now)) {
                watchLater();
                return;
            }
            if (running.compareAndSet(now, now + 1) && !startOne()) {
                return;
            }
        }
    }

    /** Starts a worker for each unit waiting, up to the most running. */
    void startForAll() {
        while (!ready.isEmpty()) {
            int now = running.get();
            if (now >= most + stuck.get()) {
                return;
            }
            if (running.compareAndSet(now, now + 1) && !startOne()) {
                return;
            }
        }
    }

    /** Looks at the buffer after the watch period, unless a look is scheduled already. */
    private void watchLater() {
        if (watching.compareAndSet(false, true)) {
            threads.schedule(WATCH, this::watch);
        }
    }

    /**
     * The timer's look at the buffer: where the oldest unit has waited a watch period, workers
     * start for the units waiting, each on a thread of its own; while units wait it looks again.
     */
    private void watch() {
        watching.set(false);
        Unit oldest = ready.peek();
        if (oldest == null || stopping) {
            return;
        }
        if (System.nanoTime() - oldest.queuedAt() >= WATCH.toNanos()) {
            startForAll();
        } else {
            watchLater();
        }
    }

    /** Starts a worker task; false when the threads refused it (the next units dispatched try again). */
    private boolean startOne() {
        try {
            threads.run("inbox-" + queue + "-worker", this::workUnits);
            return true;
        } catch (RuntimeException e) {
            running.decrementAndGet();
            LOG.log(Level.ERROR, "queue " + queue + ": a worker could not start; the next units claimed start one", e);
            return false;
        }
    }

    /**
     * A worker: works the units waiting until none is left, handing over to a new task after a
     * slice. Run dry, it claims on its own thread before it ends where more rows are due.
     */
    private void workUnits() {
        long end = System.nanoTime() + Threads.SLICE.toNanos();
        while (true) {
            Unit unit = ready.poll();
            if (unit == null && !stopping && next.whenDry()) {
                unit = ready.poll();
            }
            if (unit == null) {
                running.decrementAndGet();
                next.ended();
                startSome(); // a unit put in the buffer since the poll above finds a worker
                return;
            }
            try {
                work(unit);
            } catch (Throwable e) {
                LOG.log(Level.ERROR, "queue " + queue + ": a worker failed outside any handler; the next unit"
                        + " goes on", e);
            }
            Thread.interrupted(); // an interrupt of a delivery cut off does not reach the next
            if (System.nanoTime() - end >= 0) {
                startOne();
                return;
            }
        }
    }

    private void work(Unit unit) {
        List<InFlight> rows = unit.rows();
        try {
            if (stopping) {
                rows.forEach(delivery -> release(delivery, false));
            } else {
                List<InFlight> live = notExpired(rows);
                if (!live.isEmpty()) {
                    live.forEach(delivery -> delivery.worker(Thread.currentThread()));
                    long started = System.nanoTime();
                    deliverSafely(live, false);
                    pace.worked(System.nanoTime() - started);
                }
            }
        } finally {
            rows.forEach(delivery -> delivery.worker(null));
            rows.forEach(inWork::remove);
            capacity.unitDone();
            unit.claim().done(rows.size());
            next.unitDone();
        }
    }

    /** Rows claimed on a worker's thread are in work from now on: a stop drains them. */
    void holding(List<InFlight> rows) {
        inWork.addAll(rows);
    }

    /**
     * Works rows this thread claimed in the handler's context ({@link #holding} them), and gives
     * back their room and their claim's place: a worker that claims for itself.
     */
    void workHere(List<InFlight> rows, int roomTaken) {
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
            capacity.giveBack(roomTaken);
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
            if (delivery.expireIfOut(now)) {
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

    /** Gives a claimed row back; counted among the rows shutdown released. */
    boolean release(InFlight delivery, boolean started) {
        boolean back = deliverer.release(delivery, started);
        if (back) {
            released.incrementAndGet();
        }
        return back;
    }

    /** Rows given back at once since the subscription opened. */
    int released() {
        return released.get();
    }

    /**
     * A worker's handler outran its timeout ({@link HandlerWatch}) and may never return: it counts no
     * more among the most, and another worker starts for the units waiting behind it.
     */
    void stuck() {
        stuck.incrementAndGet();
        startForAll();
    }

    /** A worker timed out has let go of its unit: it counts again. */
    void unstuck() {
        stuck.decrementAndGet();
    }

    /** From now on the rows of units taken are released, not worked; workers start to release those waiting. */
    void stop() {
        stopping = true;
        startForAll();
    }

    /** True while it stops. */
    boolean stopping() {
        return stopping;
    }
}
