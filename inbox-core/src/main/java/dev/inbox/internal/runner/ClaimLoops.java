package dev.inbox.internal.runner;

import dev.inbox.internal.form.Claimer;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.jdbc.Redaction;
import dev.inbox.internal.task.FailureLog;
import dev.inbox.internal.task.OutageBackoff;
import dev.inbox.internal.task.SerialTask;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.Threads;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntFunction;

/**
 * A subscription's claim loops. Each loop is a {@link SerialTask}: its step claims while there is
 * room and rows come, and it holds no thread between claims; a unit of work done, a wake, the poll
 * interval or the end of an outage's back-off starts it again. The loops time their claims for
 * health (a claim that never returns is a stuck loop), log a run of failed claims once, and back
 * off after each.
 */
final class ClaimLoops {
    private static final System.Logger LOG = System.getLogger(ClaimLoops.class.getName());

    /** A loop's step: true to run again at once. */
    @FunctionalInterface
    interface Step {
        boolean run(int loop);
    }

    private final String queue;
    private final String table;
    private final IntFunction<String> names;
    private final int count;
    private final Duration pollInterval;
    private final Claimer claimer;
    private final Clock clock;
    private final BrokerListener listener;
    private final FailureLog failures;
    private final OutageBackoff[] backoffs;
    /** When the claim in progress began (System.nanoTime()), per loop; 0 when none runs. */
    private final AtomicLongArray started;
    /** Steps in progress. */
    private final AtomicInteger running = new AtomicInteger();
    /** True while a poll is due: the next claim after the poll interval, when nothing else signals. */
    private final AtomicBoolean pollDue = new AtomicBoolean();
    /** When the scheduled poll should fire (System.nanoTime()); 0 when none is scheduled. */
    private volatile long pollFiresAt;
    private volatile boolean stopping;
    private Threads threads;
    private SerialTask[] tasks;

    /** @param names the name of each loop's task */
    ClaimLoops(String queue, String table, IntFunction<String> names, int count, Duration pollInterval, Claimer claimer,
            Clock clock, BrokerListener listener) {
        this.queue = queue;
        this.table = table;
        this.names = names;
        this.count = count;
        this.pollInterval = pollInterval;
        this.claimer = claimer;
        this.clock = clock;
        this.listener = listener;
        this.failures = new FailureLog(LOG, "queue " + queue + ": claiming from table " + table);
        this.backoffs = new OutageBackoff[count];
        this.started = new AtomicLongArray(count);
        for (int i = 0; i < count; i++) {
            backoffs[i] = new OutageBackoff();
        }
    }

    int count() {
        return count;
    }

    /** Starts every loop on {@code pool}, each running {@code step}; throws where the threads refuse one. */
    void start(Threads pool, Step step) {
        threads = pool;
        SerialTask[] loops = new SerialTask[count];
        for (int i = 0; i < count; i++) {
            int loop = i;
            loops[i] = new SerialTask(pool, names.apply(i), () -> {
                running.incrementAndGet();
                try {
                    return step.run(loop);
                } finally {
                    running.decrementAndGet();
                }
            });
        }
        tasks = loops;
        for (SerialTask task : loops) {
            task.start();
        }
    }

    /** Steps in progress. */
    int running() {
        return running.get();
    }

    /** Signals an idle loop, or the first one to claim again after its claim in progress. */
    void signal() {
        if (tasks != null && !stopping) {
            idleOrFirst().signal();
        }
    }

    /** Runs an idle loop's step here, on a task of the engine's: no thread wakes for it. */
    void runHere() {
        idleOrFirst().runHere();
    }

    private SerialTask idleOrFirst() {
        for (SerialTask task : tasks) {
            if (task.idle()) {
                return task;
            }
        }
        return tasks[0];
    }

    /** The form's claim by loop {@code loop}, timed for {@link #stuck} and for the listener. */
    List<InFlight> claim(int loop, int limit) throws SQLException {
        long begun = System.nanoTime();
        started.set(loop, begun);
        try {
            List<InFlight> rows = claimer.claim(clock.instant(), limit);
            listener.claimed(queue, rows.size(), Elapsed.since(begun));
            backoffs[loop].succeeded();
            failures.succeeded();
            return rows;
        } finally {
            started.set(loop, 0);
        }
    }

    /**
     * A claim of loop {@code loop} failed: told, logged once per outage, and the loop backs off;
     * after {@link #stop} only logged at DEBUG.
     */
    void failed(int loop, Throwable e) {
        if (stopping) {
            // A claim cut short by the shutdown (its connection closed under it) is no outage.
            LOG.log(System.Logger.Level.DEBUG, "queue " + queue + ": a claim ended by the shutdown failed", e);
            return;
        }
        listener.databaseFailed(queue, "claim", e instanceof Exception x ? x : new IllegalStateException(e));
        failures.failed(() -> Redaction.redact(String.valueOf(e.getMessage())));
        threads.schedule(backoffs[loop].failed(), tasks[loop]::signal);
    }

    /** The next claim after the poll interval, unless one is due already. */
    void pollLater() {
        if (pollDue.compareAndSet(false, true)) {
            pollFiresAt = System.nanoTime() + pollInterval.toNanos();
            threads.schedule(pollInterval, () -> {
                pollFiresAt = 0;
                pollDue.set(false);
                signal();
            });
        }
    }

    /** The run of failed claims in progress; null while claims succeed. */
    FailureLog.Outage outage() {
        return failures.outage();
    }

    /**
     * What is stuck at {@code now} (System.nanoTime()): a claim running, a loop waiting for a
     * thread, or the poll late, by more than {@code limit}; null when nothing is.
     */
    String stuck(long now, long limit) {
        if (tasks == null || stopping) {
            return null;
        }
        for (int loop = 0; loop < count; loop++) {
            long begun = started.get(loop);
            if (begun != 0 && now - begun > limit) {
                return "queue " + queue + ": a claim on table " + table + " has run for " + seconds(now - begun)
                        + " s";
            }
            long waiting = tasks[loop].waitingNanos(now);
            if (waiting > limit) {
                return "queue " + queue + ": a claim loop has waited " + seconds(waiting) + " s for a thread";
            }
        }
        long poll = pollFiresAt;
        if (poll != 0 && now - poll > limit) {
            return "queue " + queue + ": the poll is " + seconds(now - poll) + " s late";
        }
        return null;
    }

    private static long seconds(long nanos) {
        return Duration.ofNanos(nanos).toSeconds();
    }

    /** From now on the loops claim no more; a claim in progress ends as it will. */
    void stop() {
        stopping = true;
    }

    boolean stopping() {
        return stopping;
    }
}
