package dev.inbox.internal.runner;

import dev.inbox.internal.form.InFlight;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A subscription's handler timeout: one timer signal every tenth of the timeout (10 ms to 1 s)
 * looks at the deliveries in work, none where no timeout is set. A handler first seen running
 * longer than the timeout ago is marked timed out (its attempt fails as it returns: see
 * {@link HandlerTimeout}) and its thread interrupted. Java cannot stop a thread that ignores the
 * interrupt, so its worker no longer counts among the subscription's: another takes the rows
 * waiting behind it. Its row returns all the same: the lease keeper lets its lease run out, or,
 * where the claim allows it (its handler writes nowhere the settlement ends), the row settles as
 * a failed attempt at once, so the rows claimed with it are not held behind it.
 */
final class HandlerWatch {
    private static final System.Logger LOG = System.getLogger(HandlerWatch.class.getName());

    private final String queue;
    private final Duration timeout;
    private final Duration every;
    private final Collection<InFlight> inWork;
    private final Workers workers;
    private final Deliverer<?> deliverer;
    /** When each delivery in work was first seen with a worker (System.nanoTime()); the watch's own. */
    private Map<InFlight, Long> seen = new HashMap<>();
    /** The workers timed out that have not yet let go of their rows. */
    private final Map<Thread, List<InFlight>> stuck = new HashMap<>();
    private volatile boolean stopped;
    private Threads threads;

    HandlerWatch(String queue, Duration timeout, Collection<InFlight> inWork, Workers workers, Deliverer<?> deliverer) {
        this.queue = queue;
        this.timeout = timeout;
        Duration tenth = timeout.dividedBy(10);
        this.every = tenth.compareTo(Duration.ofMillis(10)) < 0 ? Duration.ofMillis(10)
                : tenth.compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1) : tenth;
        this.inWork = inWork;
        this.workers = workers;
        this.deliverer = deliverer;
    }

    void start(Threads pool) {
        this.threads = pool;
        pool.schedule(every, this::look);
    }

    void stop() {
        stopped = true;
    }

    /** One look, on the timer's signal; the next is scheduled from here, so looks never overlap. */
    private void look() {
        if (stopped) {
            return;
        }
        try {
            look(System.nanoTime());
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "queue " + queue + ": the handler timeout's look failed; it looks again", e);
        } finally {
            if (!stopped) {
                threads.schedule(every, this::look);
            }
        }
    }

    private void look(long now) {
        Map<InFlight, Long> next = new HashMap<>();
        Map<Thread, List<InFlight>> late = new HashMap<>();
        for (InFlight delivery : inWork) {
            Thread worker = delivery.worker();
            if (worker == null || delivery.timedOut()) {
                continue;
            }
            long since = seen.getOrDefault(delivery, now);
            if (now - since >= timeout.toNanos()) {
                late.computeIfAbsent(worker, w -> new ArrayList<>()).add(delivery);
            } else {
                next.put(delivery, since);
            }
        }
        seen = next;
        late.forEach(this::timeOut);
        // A worker whose rows are all let go (its handler returned, the unit ended) counts again.
        stuck.entrySet().removeIf(entry -> {
            boolean back = entry.getValue().stream().noneMatch(delivery -> delivery.worker() == entry.getKey());
            if (back) {
                workers.unstuck();
            }
            return back;
        });
    }

    /** Times out the rows of one worker's handler (a batch handler's are several): interrupted, and the worker let go. */
    private void timeOut(Thread worker, List<InFlight> rows) {
        List<InFlight> timedOut = new ArrayList<>(rows.size());
        for (InFlight delivery : rows) {
            if (delivery.timeOut()) {
                timedOut.add(delivery);
                LOG.log(Level.WARNING, "queue {0}: the handler of row {1} ran longer than its handler-timeout of {2}"
                        + " ms; its thread is interrupted and the attempt fails", queue,
                        String.valueOf(delivery.id()), timeout.toMillis());
            }
        }
        if (timedOut.isEmpty()) {
            return; // its handler returned meanwhile
        }
        worker.interrupt();
        stuck.put(worker, timedOut);
        workers.stuck();
        // Where the claim allows it, the row settles now, on a thread of its own (the timer's signal is short).
        List<InFlight> apart = timedOut.stream().filter(delivery -> delivery.claim().settlesBesideItsHandler()).toList();
        if (!apart.isEmpty()) {
            try {
                threads.run("inbox-" + queue + "-timeout", () -> apart.forEach(deliverer::timedOut));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "queue {0}: no thread to settle rows {1} beside their stuck handler; they"
                        + " settle when it returns", queue, apart);
            }
        }
    }
}
