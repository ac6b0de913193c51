package dev.inbox.internal.runner;

import dev.inbox.QueueHealth;
import dev.inbox.ShutdownReport;
import dev.inbox.internal.form.Dispatch;
import dev.inbox.internal.form.FormPlan;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.task.FailureLog;
import dev.inbox.internal.task.Service;
import dev.inbox.internal.task.Services;
import dev.inbox.internal.task.Waiting;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Runs one subscription: its claim loops ({@link ClaimLoops}) keep a buffer of claimed rows filled,
 * its {@link Workers} work them through the {@link Deliverer}, the {@link Capacity} bounds what it
 * holds, and what its form runs beside them (a lease keeper, lock sessions, the carry of acks) runs
 * as services of its own. How claims reach the workers is the form's {@link Dispatch}, a
 * {@link Handover} chosen once.
 *
 * <p>The subscription holds at most {@code workers + prefetch} rows at once, in work or waiting
 * (prefetch defaults to the workers, at most the batch size); a claim starts when at least half of
 * the waiting room is free and takes up to a batch of what is free, so workers seldom wait for a
 * claim. Enough claim loops run to keep the room filled. A batch handler's claim is one unit of
 * work, and its room is counted in units (one waits beside those in work).
 */
public final class SubscriptionRunner implements Service {
    private static final System.Logger LOG = System.getLogger(SubscriptionRunner.class.getName());
    /** How long past the caller's deadline the acks of deliveries done may take to be written. */
    private static final Duration ACKS_AFTER_DRAIN = Duration.ofSeconds(1);
    /** How long past the caller's deadline the rows of handlers cut off may take to be released. */
    private static final Duration RELEASES_AFTER_DRAIN = Duration.ofMillis(500);

    private final String queue;
    private final FormPlan plan;
    private final RunnerSettings settings;
    private final Predicate<String> paused;
    private final Set<InFlight> inWork;
    private final boolean batches;
    /** The most rows one claim takes. */
    private final int batch;
    private final Capacity capacity;
    private final ClaimLoops loops;
    private final Workers workers;
    private final Handover handover;
    /** Null where no handler timeout is set: no timer then. */
    private final HandlerWatch watch;
    private Threads threads;

    /**
     * @param inWork  the deliveries claimed and not yet done, which the form's context shares
     * @param batches true where a batch handler takes each claim's rows in one call
     * @param paused  true while an operator has the queue paused
     */
    public SubscriptionRunner(String queue, String table, FormPlan plan, Deliverer<?> deliverer,
            RunnerSettings settings, boolean batches, Clock clock, BrokerListener listener, Predicate<String> paused,
            Set<InFlight> inWork) {
        this.queue = queue;
        this.plan = plan;
        this.settings = settings;
        this.paused = paused;
        this.inWork = inWork;
        this.batches = batches;
        int most = settings.workers();
        boolean onWorker = plan.dispatch() == Dispatch.ON_WORKER;
        this.batch = plan.rowsPerClaim();
        // By default at most one row waits per worker: enough to hide a claim's round trip, and few
        // held back from other processes behind a slow handler.
        int ahead = onWorker ? 0 : settings.prefetch() >= 0 ? settings.prefetch() : Math.min(batch, most);
        int held = batches ? most + 1 : most + ahead;
        int claimAt = batches ? 1 : Math.max(1, Math.min(batch, ahead / 2));
        // Enough claims in flight to fill the room (one claims while another's rows are handed out),
        // one per worker at most.
        int claimLoops = onWorker ? most : batches ? 1 : Math.max(1, Math.min(most, (most + ahead + batch - 1) / batch));
        this.capacity = new Capacity(held, claimAt, batches ? 1 : batch, plan.claimsAtOnce());
        this.loops = new ClaimLoops(queue, table, loop -> onWorker ? "inbox-" + queue + "-worker-" + (loop + 1)
                : "inbox-" + queue + "-claim" + (claimLoops > 1 ? "-" + (loop + 1) : ""), claimLoops,
                settings.pollInterval(), plan.claimer(), clock, listener);
        this.workers = new Workers(queue, most, batches, deliverer, clock, capacity, inWork);
        this.handover = Handover.of(plan.dispatch(), loops, workers, capacity, most, batches, deliverer);
        this.watch = settings.handlerTimeout() == null ? null
                : new HandlerWatch(queue, settings.handlerTimeout(), inWork, workers, deliverer);
    }

    /** The connections the subscription may hold at once, as its form counts them. */
    public int connections() {
        return plan.connections().with(loops.count());
    }

    /**
     * Starts what the form runs beside the workers, then the claim loops; where one cannot start,
     * stops what started and throws.
     */
    @Override
    public void start(Threads threads) {
        this.threads = threads;
        List<Service> started = new ArrayList<>(plan.beside());
        started.add(plan.carry());
        Services.startAll(started, threads, Duration.ofSeconds(5));
        workers.start(threads, new Workers.Next() {
            @Override
            public void unitDone() {
                handover.unitDone();
            }

            @Override
            public boolean whenDry() {
                return handover.whenDry();
            }

            @Override
            public void ended() {
                if (loops.running() == 0) {
                    plan.carry().quiet(); // no claim to carry what waits: see claimStep
                }
            }
        });
        if (watch != null) {
            watch.start(threads);
        }
        try {
            loops.start(threads, this::claimStep);
        } catch (RuntimeException e) {
            loops.stop();
            if (watch != null) {
                watch.stop();
            }
            Services.stopAll(started, threads, System.nanoTime() + Duration.ofSeconds(5).toNanos());
            throw e;
        }
    }

    /** Rows may be due (a publish here, a notification): a claim loop claims now, or once there is room. */
    public void wake() {
        if (capacity.canClaim() || capacity.awaitRoom()) {
            loops.signal();
        }
    }

    /** A step of claim loop {@code loop}; where it ends with no worker running, what waits to be carried goes. */
    private boolean claimStep(int loop) {
        boolean again = false;
        try {
            again = claimOnce(loop);
            return again;
        } finally {
            // A loop that ends its claims with no worker running leaves no claim to carry what waits; a
            // worker that ends its run checks the other way round, so one of the two sees the other gone.
            if (!again && loops.running() == 1 && workers.running() == 0) {
                plan.carry().quiet();
            }
        }
    }

    /**
     * One claim of loop {@code loop}, when there is room and a claim's place: true when it claimed
     * rows, so it claims again at once. Without room it ends; the room freed signals it. A loop
     * whose claim came back full passes a signal on, so others claim beside it while rows keep
     * coming; an empty claim waits for a wake or the poll interval.
     */
    private boolean claimOnce(int loop) {
        if (loops.stopping()) {
            return false;
        }
        if (paused.test(queue)) {
            loops.pollLater(); // paused by an operator: look again a poll interval on
            return false;
        }
        int taken = capacity.take();
        if (taken == 0) {
            return capacity.awaitRoom();
        }
        if (loops.stopping()) {
            handover.giveBack(taken);
            return false;
        }
        int wanted = batches ? batch : taken;
        List<InFlight> claimed;
        try {
            claimed = handover.claim(loop, taken, wanted);
        } catch (Throwable e) {
            handover.moreDue = false;
            handover.giveBack(taken);
            loops.failed(loop, e);
            return false;
        }
        handover.moreDue = !claimed.isEmpty() && claimed.size() == wanted;
        if (claimed.isEmpty()) {
            // Nothing due: a wake or the poll. A claim cut short by rows settled elsewhere meanwhile
            // (advisory) is not empty, so its loop claims again at once.
            loops.pollLater();
            return false;
        }
        if (handover.moreDue && loops.count() > 1 && !workers.keepUp()) {
            loops.signal(); // more may be due: another loop claims beside this one
        }
        return handover.claimAgain();
    }

    /**
     * Ready unless its claims (or a service beside them, the lease keeper) are failing; live unless
     * a claim loop or such a service is stuck: a claim or a keeper's pass running, a loop or the
     * keeper waiting for a thread, or the poll or the keeper's pass late by more than
     * {@code stuckAfter} (null: five poll intervals, at least ten seconds).
     */
    public QueueHealth health(Duration stuckAfterOrDefault) {
        Duration stuckAfter = stuckAfterOrDefault != null ? stuckAfterOrDefault
                : Collections.max(List.of(Duration.ofSeconds(10), settings.pollInterval().multipliedBy(5)));
        long now = System.nanoTime();
        long limit = stuckAfter.toNanos();
        List<String> down = new ArrayList<>();
        FailureLog.Outage claims = loops.outage();
        if (claims != null) {
            down.add(claims.toString());
        }
        String stuck = loops.stuck(now, limit);
        for (Service service : plan.beside()) {
            Health health = service.health(now, limit);
            if (health.down() != null) {
                down.add(health.down());
            }
            stuck = stuck != null ? stuck : health.stuck();
        }
        boolean ready = down.isEmpty();
        if (stuck != null) {
            down.add(stuck);
        }
        return new QueueHealth(queue, ready, stuck == null, paused.test(queue), String.join("; ", down));
    }

    /**
     * Stops the subscription by {@code deadline} (System.nanoTime()): the claim loops claim no more
     * and the claims in progress are waited for; rows claimed and not yet worked go back; the
     * services beside the workers stop (leases are no longer extended; advisory locks of
     * deliveries in work are released, their rows back); the deliveries in work settle until the
     * deadline, and handlers still running then are cut off, their rows released (a release the
     * database keeps waiting is not waited for); last, what waits to be carried is written.
     */
    @Override
    public ShutdownReport stop(long deadline) throws InterruptedException {
        loops.stop();
        workers.stop();
        if (!Waiting.until(() -> handover.claimsInProgress() == 0, remaining(deadline))) {
            LOG.log(Level.WARNING, "queue {0}: a claim was still running at the deadline; its rows go back when"
                    + " it ends", queue);
        }
        workers.startForAll(); // rows of the claims that ended meanwhile are released by the workers
        ShutdownReport report = ShutdownReport.NONE;
        for (Service service : plan.beside()) {
            report = report.plus(service.stop(deadline));
        }
        int cutOff = drain(deadline);
        if (watch != null) {
            watch.stop(); // it watched the drain too: a handler past its timeout there is interrupted
        }
        plan.carry().stop(deadline + ACKS_AFTER_DRAIN.toNanos());
        return report.plus(new ShutdownReport(workers.released(), 0, cutOff, 0));
    }

    /**
     * Waits for the deliveries in work until {@code deadline}; handlers still running then are cut
     * off and their rows released, waited for until a moment past the deadline ({@link CutOff}).
     * Returns the handlers cut off.
     */
    private int drain(long deadline) throws InterruptedException {
        Waiting.until(inWork::isEmpty, remaining(deadline));
        return CutOff.release(queue, List.copyOf(inWork), workers, threads, deadline + RELEASES_AFTER_DRAIN.toNanos());
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /** Deliveries claimed and not yet settled. */
    public int inWork() {
        return inWork.size();
    }

    @Override
    public String toString() {
        return "the subscription of queue " + queue;
    }
}
