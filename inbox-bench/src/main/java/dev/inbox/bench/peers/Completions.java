package dev.inbox.bench.peers;

import dev.inbox.bench.meter.Meter;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The jobs a peer has finished, each counted once, as the engine's drain counts its settlements:
 * a peer's run ends when it has written the last job's completion, not when the last no-op
 * returned. A failed job ends the wait at once, as nothing in a no-op task should fail.
 */
final class Completions {
    /** The engine's drain waits as long. */
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private final String what;
    private final int jobs;
    private final CountDownLatch left;
    private final Set<Object> done;
    private final AtomicReference<String> failure = new AtomicReference<>();
    private final AtomicLong first = new AtomicLong();
    private Meter meter;
    private long started;

    /** {@code what} names the run in messages: peer, database and workers. */
    Completions(String what, int jobs) {
        this.what = what;
        this.jobs = jobs;
        this.left = new CountDownLatch(jobs);
        this.done = ConcurrentHashMap.newKeySet(2 * jobs); // sized once: no rehash while measured
    }

    /** Starts the clock, just before the peer starts. */
    void start() {
        meter = Meter.start();
        started = System.nanoTime();
    }

    void completed(Object job) {
        if (done.add(job)) {
            first.compareAndSet(0, System.nanoTime());
            left.countDown();
        }
    }

    void failed(Object job, String why) {
        failure.compareAndSet(null, "job " + job + " failed: " + why);
    }

    /** Returns the drain when every job has completed; throws when one failed or the time ran out. */
    Drained await() throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        // Returns as soon as the count reaches zero; the slices only let a failure end the wait early.
        while (!left.await(100, TimeUnit.MILLISECONDS)) {
            String failed = failure.get();
            if (failed != null) {
                throw new IllegalStateException(what + ": " + failed);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(what + " did not complete " + jobs + " jobs in " + TIMEOUT + "; "
                        + left.getCount() + " are left");
            }
        }
        Meter.Measured measured = meter.stop(jobs);
        return new Drained(measured, (first.get() - started) / 1e6);
    }
}
