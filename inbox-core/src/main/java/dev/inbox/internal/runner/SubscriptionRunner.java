package dev.inbox.internal.runner;

import dev.inbox.QueueHealth;
import dev.inbox.internal.form.Form;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.jdbc.Redaction;
import dev.inbox.internal.task.FailureLog;
import dev.inbox.internal.task.OutageBackoff;
import dev.inbox.internal.task.SerialTask;
import dev.inbox.internal.task.Waiting;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Predicate;

/**
 * Runs one subscription: claim loops that keep a local buffer of claimed rows filled, up to
 * {@code workers} tasks that work deliveries from it through the {@link Deliverer}, and what the
 * claim form runs beside them (the lease form's keeper and ack writer). Each loop is a
 * {@link SerialTask}: it claims while there is room and rows come, and holds no thread between
 * claims; a unit of work done (whose worker runs the claim itself before its next unit), a wake,
 * the poll interval or the end of an outage's backoff starts it again. Workers run while the
 * buffer holds units and end when it is empty; a worker run dry while full claims come back claims
 * on its own thread first, as a plain loop would. A thread wake costs a context switch on each
 * side, so workers start only where those running would not get through the units waiting within
 * a millisecond at the pace units take ({@link WorkPace}): a drain of handlers that keep up wakes
 * no thread per claim, and the watch wakes workers for a unit that has waited {@link #WATCH} all
 * the same (a handler that kept up so far runs long).
 *
 * <p>The subscription holds at most {@code workers + prefetch} rows at once, in work or waiting in
 * the buffer (prefetch defaults to the workers, at most the batch size); a claim starts when at
 * least half of the waiting room is free and takes up to a batch of what is free, so workers
 * seldom wait for a claim. Enough claim loops run to keep
 * the room filled. A batch handler's claim is one unit of work, and its room is counted in units
 * (one waits beside those in work). Claims that keep a connection until their rows settle are
 * capped as the form says. Where the form claims on the worker ({@link Form#claimsOnWorker}), or a
 * claim takes one row and several workers run, each worker is a claim loop that works the row it
 * claimed itself, and nothing waits in the buffer.
 */
public final class SubscriptionRunner {
    private static final System.Logger LOG = System.getLogger(SubscriptionRunner.class.getName());

    private final String queue;
    private final String table;
    private final Form form;
    private final Deliverer<?> deliverer;
    private final RunnerSettings settings;
    private final Clock clock;
    private final BrokerListener listener;
    /** True while an operator has the queue paused. */
    private final Predicate<String> paused;
    private final boolean batches;
    /** True when each worker claims for itself and works what it claimed on its own thread. */
    private final boolean claimsOnWorker;
    /** A lone worker claims once it has worked the units waiting; no claim loop is woken beside it. */
    private final boolean claimsWhenDry;
    /** The worker that works a claim's last row claims next where it can: its claim carries that claim's settlement. */
    private final boolean carriesWorked;
    private final int claimLoops;
    /** The most rows one claim takes. */
    private final int batch;
    /** The free room that starts a claim (rows, or units for a batch handler). */
    private final int claimAt;

    private final FailureLog claimFailures;
    /** Room for rows (units for a batch handler) in work or waiting in the buffer. */
    private final Semaphore room;
    /** Claims whose rows are not all done, as many as the form lets hold rows at once. */
    private final Semaphore openClaims;
    private final BlockingQueue<Unit> ready = new LinkedBlockingQueue<>();
    /** How long a unit takes: whether the workers running keep up with the units waiting without another. */
    private final WorkPace pace = new WorkPace();
    private final Set<InFlight> inWork = ConcurrentHashMap.newKeySet();
    /** Claim loop steps in progress. */
    private final AtomicInteger claimsRunning = new AtomicInteger();
    /** Worker tasks running (at most {@code workers}). */
    private final AtomicInteger workersRunning = new AtomicInteger();
    /** True while the watch is scheduled: units wait that no worker was woken for. */
    private final AtomicBoolean watching = new AtomicBoolean();
    /** True when the last claim took all it asked for: more rows may be due, so a worker run dry claims. */
    private volatile boolean moreDue;
    /** True while a poll is due: the next claim after the poll interval, when nothing else signals. */
    private final AtomicBoolean pollDue = new AtomicBoolean();
    /** True when a claim loop ended for want of room or of a claim's place: what frees them signals it. */
    private final AtomicBoolean roomWanted = new AtomicBoolean();
    private final AtomicInteger rowsReleased = new AtomicInteger();
    /** Workers inside a claim that may yet put rows in work (when the form claims on the worker). */
    private final AtomicInteger claiming = new AtomicInteger();
    /** When the claim in progress began (System.nanoTime()), per claim loop; 0 when none runs. */
    private final AtomicLongArray claimStarted;
    /** When the scheduled poll should fire (System.nanoTime()); 0 when none is scheduled. */
    private volatile long pollFiresAt;
    private volatile boolean stopping;
    private Threads threads;
    private SerialTask[] claimTasks;
    private OutageBackoff[] backoffs;

    /**
     * What one worker takes: one row, or a batch handler's whole claim, the claim it came from, and
     * when it was put in the buffer (System.nanoTime()).
     */
    private record Unit(List<InFlight> rows, ClaimHold claim, long queuedAt) {}

    /** How long a unit may wait, with no worker woken for it, before the watch wakes one. */
    private static final Duration WATCH = Duration.ofMillis(10);

    /** A claim that holds a connection: it frees its place among the open claims when its last row is done. */
    private final class ClaimHold {
        private final AtomicInteger open;

        ClaimHold(int rows) {
            open = new AtomicInteger(rows);
        }

        /** Returns true when these were the claim's last rows. */
        boolean done(int rows) {
            if (open.addAndGet(-rows) == 0) {
                openClaims.release();
                return true;
            }
            return false;
        }
    }

    public SubscriptionRunner(String queue, String table, Form form, Deliverer<?> deliverer, RunnerSettings settings,
            boolean batches, Clock clock, BrokerListener listener, Predicate<String> paused) {
        this.paused = paused;
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
        // A claim of one row handed from a claim loop to a worker costs a thread wake per job. With one
        // worker the loop's next claim overlaps the handler, which pays for it; with several, their
        // claims overlap one another's handlers, so each worker claims its row and works it, as a
        // plain loop would (the ack writer still writes acks beside it).
        this.claimsOnWorker = form.claimsOnWorker() || batch == 1 && workers > 1;
        // Claims of a batch each, though (or of one row where the claim carries the last one's ack), cost
        // a claim loop's wake and wait more than their overlap saves where the form's claim holds
        // nothing open: the lone worker claims once it has worked them.
        this.carriesWorked = !claimsOnWorker && !batches && form.nextClaimCarriesWorked();
        this.claimsWhenDry = !claimsOnWorker && !batches && workers == 1 && form.loneWorkerClaimsWhenDry(batch);
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
        this.claimStarted = new AtomicLongArray(claimLoops);
        this.claimFailures = new FailureLog(LOG, "queue " + queue + ": claiming from table " + table);
    }

    /** Claim loops running at once: enough that claims of a batch each feed every worker. */
    public int claimLoops() {
        return claimLoops;
    }

    public void start(Threads threads) {
        this.threads = threads;
        claimTasks = new SerialTask[claimLoops];
        backoffs = new OutageBackoff[claimLoops];
        for (int i = 0; i < claimLoops; i++) {
            int loop = i;
            backoffs[i] = new OutageBackoff();
            String name = claimsOnWorker ? "inbox-" + queue + "-worker-" + (i + 1)
                    : "inbox-" + queue + "-claim" + (claimLoops > 1 ? "-" + (i + 1) : "");
            claimTasks[i] = new SerialTask(threads, name, () -> claimStep(loop));
        }
        form.start(threads, "inbox-" + queue, inWork);
        for (SerialTask task : claimTasks) {
            task.signal();
        }
    }

    /** Rows may be due (a publish here, a notification): a claim loop claims now, or once there is room. */
    public void wake() {
        if (!canClaim()) {
            roomWanted.set(true);
            if (!canClaim()) {
                return; // what frees room signals a loop
            }
        }
        signalClaims();
    }

    /** Signals an idle claim loop, or the first one to claim again after its claim in progress. */
    private void signalClaims() {
        if (claimTasks != null && !stopping) {
            idleLoopOrFirst().signal();
        }
    }

    private SerialTask idleLoopOrFirst() {
        for (SerialTask task : claimTasks) {
            if (task.idle()) {
                return task;
            }
        }
        return claimTasks[0];
    }

    /** Room or a claim's place came free: a loop that ended for want of them claims once there is enough. */
    private void roomFreed() {
        if (roomNowEnough()) {
            signalClaims();
        }
    }

    /**
     * As {@link #roomFreed()}, on a worker's thread. Where no unit is left in the buffer (the worker
     * would idle) or other workers go on working it, an idle loop claims right here instead of
     * waiting for a thread of its own; where this worker alone works the units waiting, a loop
     * claims on its own thread beside it, so those units do not sit out the claim's round trip,
     * unless the lone worker claims for itself once they are worked ({@link Form#loneWorkerClaimsWhenDry}).
     */
    private void roomFreedOnWorker() {
        if (claimsWhenDry && !ready.isEmpty()) {
            return; // it claims once it has worked these: the last of them finds the buffer empty
        }
        if (roomNowEnough()) {
            if (ready.isEmpty() || workersRunning.get() > 1 || settings.workers() > 1 && workersKeepUp()) {
                idleLoopOrFirst().runHere();
            } else {
                signalClaims();
            }
        }
    }

    /** True once for a loop that ended wanting room, when enough of it is free: the caller wakes a loop. */
    private boolean roomNowEnough() {
        return roomWanted.get() && canClaim() && roomWanted.compareAndSet(true, false);
    }

    private boolean canClaim() {
        return room.availablePermits() >= claimAt && openClaims.availablePermits() > 0;
    }

    /**
     * Ends a claim loop's step for want of room or of a claim's place: what frees them signals it.
     * Returns true (claim again at once) when they came free meanwhile, so no signal is missed.
     */
    private boolean awaitRoom() {
        roomWanted.set(true);
        return canClaim();
    }

    /** The next claim after the poll interval, unless one is due already. */
    private void pollLater() {
        if (pollDue.compareAndSet(false, true)) {
            pollFiresAt = System.nanoTime() + settings.pollInterval().toNanos();
            threads.schedule(settings.pollInterval(), () -> {
                pollFiresAt = 0;
                pollDue.set(false);
                signalClaims();
            });
        }
    }

    /** A step of claim loop {@code loop}: {@link #claimOnce}, counted among the claims running. */
    private boolean claimStep(int loop) {
        claimsRunning.incrementAndGet();
        boolean again = false;
        try {
            again = claimOnce(loop);
            return again;
        } finally {
            // A loop that ends its claims with no worker running leaves no claim to carry the acks
            // waiting; a worker that ends its run checks the other way round (workUnits), so one of
            // the two sees the other gone.
            if (claimsRunning.decrementAndGet() == 0 && !again && workersRunning.get() == 0) {
                form.quiet();
            }
        }
    }

    /**
     * One claim of loop {@code loop}, when there is room and a claim's place: true when it claimed
     * rows, so it claims again at once. Without room it ends; the room freed signals it. A
     * loop whose claim came back full passes a signal on, so others claim beside it while rows keep
     * coming; an empty claim waits for a wake or the poll interval.
     */
    private boolean claimOnce(int loop) {
        if (stopping) {
            return false;
        }
        if (paused.test(queue)) {
            pollLater(); // paused by an operator: look again a poll interval on
            return false;
        }
        int taken = takeRoom();
        if (taken == 0) {
            return awaitRoom();
        }
        if (!openClaims.tryAcquire()) {
            room.release(taken);
            return awaitRoom();
        }
        if (stopping) {
            giveBack(taken);
            return false;
        }
        int wanted = batches ? batch : taken;
        List<InFlight> claimed;
        try {
            claimed = claimsOnWorker ? claimAndWork(loop, taken) : timedClaim(loop, wanted);
            backoffs[loop].succeeded();
        } catch (Throwable e) {
            moreDue = false;
            giveBack(taken);
            listener.databaseFailed(queue, "claim", e instanceof Exception x ? x : new IllegalStateException(e));
            claimFailures.failed(() -> Redaction.redact(String.valueOf(e.getMessage())));
            SerialTask self = claimTasks[loop];
            threads.schedule(backoffs[loop].failed(), self::signal);
            return false;
        }
        claimFailures.succeeded();
        moreDue = !claimed.isEmpty() && claimed.size() == wanted;
        if (!claimsOnWorker) {
            dispatch(claimed, taken);
        } else if (claimed.isEmpty()) {
            giveBack(taken);
        }
        if (claimed.isEmpty()) {
            // Nothing due: a wake or the poll. A claim cut short by rows settled elsewhere meanwhile
            // (advisory) is not empty, so its loop claims again at once.
            pollLater();
            return false;
        }
        if (moreDue && claimLoops > 1 && !workersKeepUp()) {
            signalClaims(); // more may be due: another loop claims beside this one
        }
        // A lone worker that runs claims the next rows itself once it has worked these: a loop claiming
        // on beside it would take its claims over for good (run dry, the worker finds the loop running).
        return !(claimsWhenDry && moreDue && workersRunning.get() > 0);
    }

    /**
     * Claims on this thread inside the application's context and works what was claimed here, in
     * the same context entry (entered again, it could suspend the transaction the claim began). Throws
     * only what the claim threw; the claimed rows' room is given back once they are worked.
     */
    private List<InFlight> claimAndWork(int loop, int roomTaken) throws Exception {
        List<List<InFlight>> claimed = new ArrayList<>(1);
        Exception[] failed = new Exception[1];
        claiming.incrementAndGet();
        try {
            inHandlerContext(claimed, () -> {
                List<InFlight> rows;
                try {
                    rows = timedClaim(loop, 1);
                } catch (Exception e) {
                    failed[0] = e;
                    return;
                }
                claimed.add(rows);
                if (!rows.isEmpty()) {
                    inWork.addAll(rows);
                    claiming.decrementAndGet();
                    workHere(rows, roomTaken);
                    form.carryEnds(); // in the task that claimed, where the server binds its connection
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

    /** The form's claim, its start noted for {@link #health}: a claim that never returns is a stuck loop. */
    private List<InFlight> timedClaim(int loop, int limit) throws SQLException {
        long started = System.nanoTime();
        claimStarted.set(loop, started);
        try {
            List<InFlight> rows = form.claim(clock.instant(), limit);
            listener.claimed(queue, rows.size(), Duration.ofNanos(System.nanoTime() - started));
            return rows;
        } finally {
            claimStarted.set(loop, 0);
        }
    }

    /**
     * The subscription's health: ready unless its claims (or the form's lease keeper) are failing,
     * live unless a claim loop or the lease keeper is stuck: a claim or a keeper's pass running, a
     * loop or the keeper waiting for a thread, or the poll or the keeper's pass late by more than
     * {@code stuckAfter} (null: five poll intervals, at least ten seconds).
     */
    public QueueHealth health(Duration stuckAfterOrDefault) {
        Duration stuckAfter = stuckAfterOrDefault != null ? stuckAfterOrDefault
                : Collections.max(List.of(Duration.ofSeconds(10), settings.pollInterval().multipliedBy(5)));
        List<String> problems = new ArrayList<>();
        FailureLog.Outage claims = claimFailures.outage();
        if (claims != null) {
            problems.add(claims.toString());
        }
        FailureLog.Outage keeper = form.outage();
        if (keeper != null) {
            problems.add(keeper.toString());
        }
        boolean ready = problems.isEmpty();
        String stuck = stuck(System.nanoTime(), stuckAfter.toNanos());
        if (stuck != null) {
            problems.add(stuck);
        }
        return new QueueHealth(queue, ready, stuck == null, paused.test(queue), String.join("; ", problems));
    }

    private String stuck(long now, long limit) {
        if (claimTasks == null || stopping) {
            return null;
        }
        for (int loop = 0; loop < claimLoops; loop++) {
            long started = claimStarted.get(loop);
            if (started != 0 && now - started > limit) {
                return "queue " + queue + ": a claim on table " + table + " has run for " + seconds(now - started)
                        + " s";
            }
            long waiting = claimTasks[loop].waitingNanos(now);
            if (waiting > limit) {
                return "queue " + queue + ": a claim loop has waited " + seconds(waiting) + " s for a thread";
            }
        }
        long poll = pollFiresAt;
        if (poll != 0 && now - poll > limit) {
            return "queue " + queue + ": the poll is " + seconds(now - poll) + " s late";
        }
        return form.stuck(now, limit);
    }

    private static long seconds(long nanos) {
        return Duration.ofNanos(nanos).toSeconds();
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
            roomFreed();
        }
    }

    /** Takes the room to start a claim and up to a batch of it; returns the room taken, 0 when too little is free. */
    private int takeRoom() {
        if (!room.tryAcquire(claimAt)) {
            return 0;
        }
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
        roomFreed();
    }

    /** Puts claimed rows in the buffer, and gives back the room they did not fill. */
    private void dispatch(List<InFlight> claimed, int roomTaken) {
        if (claimed.isEmpty()) {
            giveBack(roomTaken);
            return;
        }
        inWork.addAll(claimed);
        ClaimHold hold = new ClaimHold(claimed.size());
        long now = System.nanoTime();
        if (batches) {
            ready.add(new Unit(claimed, hold, now));
        } else {
            room.release(roomTaken - claimed.size());
            for (InFlight delivery : claimed) {
                ready.add(new Unit(List.of(delivery), hold, now));
            }
        }
        startWorkers();
    }

    /**
     * Starts workers for the units waiting, up to {@code workers} running, as many as it takes for
     * the workers running to keep up with them: they go on with the units, and claim again when
     * they run dry, as a plain loop would, where a woken thread would cost more than it saves. The
     * watch wakes more should a unit wait for long all the same (a handler that kept up so far runs
     * long). Until a unit has been worked, a worker starts for each unit.
     */
    private void startWorkers() {
        while (!ready.isEmpty()) {
            int running = workersRunning.get();
            if (running >= settings.workers()) {
                return;
            }
            if (pace.keepsUp(ready.size(), running)) {
                watchLater();
                return;
            }
            if (workersRunning.compareAndSet(running, running + 1) && !startWorker()) {
                return;
            }
        }
    }

    /** Starts a worker for each unit waiting, up to {@code workers} running. */
    private void startWorkersForAll() {
        while (!ready.isEmpty()) {
            int running = workersRunning.get();
            if (running >= settings.workers()) {
                return;
            }
            if (workersRunning.compareAndSet(running, running + 1) && !startWorker()) {
                return;
            }
        }
    }

    /** True while the workers running get through the units waiting within the pace's budget. */
    private boolean workersKeepUp() {
        return pace.keepsUp(ready.size(), workersRunning.get());
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
            startWorkersForAll();
        } else {
            watchLater();
        }
    }

    /** Starts a worker task; false when the threads refused it (the next units dispatched try again). */
    private boolean startWorker() {
        try {
            threads.run("inbox-" + queue + "-worker", this::workUnits);
            return true;
        } catch (RuntimeException e) {
            workersRunning.decrementAndGet();
            LOG.log(Level.ERROR, "queue " + queue + ": a worker could not start; the next units claimed start one", e);
            return false;
        }
    }

    /**
     * A worker: works the units waiting until none is left, handing over to a new task after a
     * slice. Run dry while the last claim came back full, it claims on its own thread before it ends.
     */
    private void workUnits() {
        long end = System.nanoTime() + Threads.SLICE.toNanos();
        while (true) {
            Unit unit = ready.poll();
            if (unit == null && moreDue && !stopping && canClaim()) {
                idleLoopOrFirst().runHere();
                unit = ready.poll();
            }
            form.carryEnds(); // before the next unit's handler, or idling
            if (unit == null) {
                workersRunning.decrementAndGet();
                if (claimsRunning.get() == 0) {
                    form.quiet(); // no claim to carry its acks: see claimStep
                }
                startWorkers(); // a unit put in the buffer since the poll above finds a worker
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
                form.carryEnds();
                startWorker();
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
            room.release(batches ? 1 : rows.size());
            boolean claimWorked = unit.claim().done(rows.size());
            if (!carriesWorked) {
                roomFreedOnWorker();
            } else if (claimWorked && !stopping && canClaim()) {
                idleLoopOrFirst().runHere(); // its claim carries the settlement of the claim worked
            } else if (ready.isEmpty()) {
                roomFreedOnWorker();
            }
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
    public void stopClaiming(Duration wait) throws InterruptedException {
        stopping = true;
        // Where the loops are the workers the drain waits for their deliveries; here only for claims.
        AtomicInteger inProgress = claimsOnWorker ? claiming : claimsRunning;
        if (!Waiting.until(() -> inProgress.get() == 0, wait)) {
            LOG.log(Level.WARNING, "queue {0}: a claim did not end within {1} ms", queue, wait.toMillis());
        }
        // Rows claimed but not started are released by the workers.
        startWorkersForAll();
    }

    /**
     * Waits for handlers in work until {@code deadline} (nanoTime); handlers still running then are
     * cut off and their rows released. Returns the handlers cut off.
     */
    public int drain(long deadline) throws InterruptedException {
        Waiting.until(inWork::isEmpty, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
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
    public int stopForm() {
        return form.stop();
    }

    /** Deliveries claimed and not yet settled. */
    public int inWork() {
        return inWork.size();
    }

    public int rowsReleased() {
        return rowsReleased.get();
    }

    /** Sessions the form closed instead of giving them back, with their locks. */
    public int connectionsClosed() {
        return form.connectionsClosed();
    }
}
