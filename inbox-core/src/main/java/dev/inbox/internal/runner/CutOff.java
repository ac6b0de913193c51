package dev.inbox.internal.runner;

import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.task.Waiting;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The end of a drain: the deliveries still in work at the deadline are interrupted and their rows
 * released, on a thread of their own and waited for a moment only. A release the database keeps
 * waiting (the table locked by another connection, its lock or busy timeout far off) is not waited
 * for, so the stop keeps its deadline; the row then returns as its claim ends anyway: its lease
 * runs out, its claim's transaction rolls back as the connection closes, or its lock goes with
 * its session.
 */
final class CutOff {
    private static final System.Logger LOG = System.getLogger(CutOff.class.getName());

    private CutOff() {}

    /**
     * Interrupts the handlers of {@code left} and releases their rows through {@code workers},
     * waiting until {@code until} (System.nanoTime()) at most. Returns the handlers cut off whose
     * rows were released.
     */
    static int release(String queue, List<InFlight> left, Workers workers, Threads threads, long until)
            throws InterruptedException {
        if (left.isEmpty()) {
            return 0;
        }
        Set<InFlight> done = ConcurrentHashMap.newKeySet();
        AtomicInteger cutOff = new AtomicInteger();
        // Which had a handler, read before the interrupts: an interrupted handler's worker lets go of it.
        boolean[] started = new boolean[left.size()];
        for (int i = 0; i < started.length; i++) {
            Thread worker = left.get(i).worker();
            started[i] = worker != null;
            if (started[i]) {
                // Interrupt first: a handler inside a SQLite transaction holds the lock the release needs.
                worker.interrupt();
            }
        }
        Runnable releases = () -> {
            for (int i = 0; i < started.length; i++) {
                InFlight delivery = left.get(i);
                if (workers.release(delivery, started[i]) && started[i]) {
                    cutOff.incrementAndGet();
                    LOG.log(Level.WARNING, "queue {0}: the handler of row {1} was still running at the drain"
                            + " timeout; its delivery is dropped and the row released", queue,
                            String.valueOf(delivery.id()));
                }
                done.add(delivery);
            }
        };
        try {
            threads.run("inbox-" + queue + "-release", releases);
        } catch (RuntimeException e) {
            releases.run(); // no thread to spare: released here, however long it takes
        }
        Waiting.until(() -> done.size() == left.size(), Duration.ofNanos(Math.max(0, until - System.nanoTime())));
        for (InFlight delivery : left) {
            if (!done.contains(delivery)) {
                LOG.log(Level.WARNING, "queue {0}: row {1} could not be released by the drain deadline (the"
                        + " database keeps its release waiting: is the table locked?); the stop does not wait for"
                        + " it, and the row returns as its claim ends (its lease runs out, or its claim''s"
                        + " connection closes)", queue, String.valueOf(delivery.id()));
            }
        }
        return cutOff.get();
    }
}
