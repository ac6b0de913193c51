package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.Outcome;
import dev.inbox.Publisher;
import dev.inbox.Subscription;
import dev.inbox.engine.InboxBroker;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The time from a publish to the start of its handler, at a low rate, over {@code jobs} jobs after
 * {@value #WARM_UP} unmeasured ones. Each job is stamped with {@code System.nanoTime()} just before
 * {@code publish} is called, against the handler's first instant. The subscription (one worker,
 * batch 1) polls every {@value #POLL_SECONDS} s, so what is measured is the wake:
 * <ul>
 *   <li>{@code local}: the publisher is the subscriber's broker, which wakes its claim loop;</li>
 *   <li>{@code notify}: PostgreSQL, the publisher is another broker, and LISTEN/NOTIFY wakes the
 *       subscriber (both brokers have listenNotify on);</li>
 *   <li>{@code poll}: PostgreSQL, another broker with listenNotify off: only the poll finds jobs.</li>
 * </ul>
 * With a wake, one job is in flight at a time: the next is published once the last one's handler
 * has started and at least {@value #PACE_MICROS} µs after the last publish, so no queue builds up
 * on a slow machine and the figure is the wake path alone. Without one (poll), jobs are published
 * every {@value #PACE_MICROS} µs regardless, and each waits for the next poll.
 */
final class LatencyBench {
    static final int PACE_MICROS = 2000;
    static final int POLL_SECONDS = 5;
    private static final int WARM_UP = 100;

    /** How a publish reaches the subscription. */
    enum Wake { LOCAL, NOTIFY, POLL }

    /** Milliseconds at the 50th and 99th percentile. */
    record Percentiles(double p50, double p99) {}

    private LatencyBench() {}

    static Percentiles run(BenchDatabase db, ClaimForm form, Wake wake, int jobs) throws Exception {
        db.create(form);
        int total = WARM_UP + jobs;
        long[] sent = new long[total];
        long[] started = new long[total];
        CountDownLatch handled = new CountDownLatch(total);
        Semaphore one = new Semaphore(0);
        Subscription<Job> subscription = Subscription.of(BenchDatabase.QUEUE, db.spec(form), Job.class,
                (job, delivery) -> {
                    started[job.n()] = System.nanoTime();
                    handled.countDown();
                    one.release();
                    return Outcome.ack();
                }).workers(1).batchSize(1);
        InboxBroker subscriber = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofSeconds(POLL_SECONDS))
                .listenNotify(wake == Wake.NOTIFY).connectionLimit(6).subscribe(subscription).connect();
        InboxBroker other = wake == Wake.LOCAL ? null : InboxBroker.fromUrl(db.url())
                .listenNotify(wake == Wake.NOTIFY).connectionLimit(2)
                .route(BenchDatabase.QUEUE, db.spec(form)).connect();
        try {
            Publisher<Job> publisher = (other != null ? other : subscriber).publisher(BenchDatabase.QUEUE, Job.class);
            long next = System.nanoTime();
            for (int n = 0; n < total; n++) {
                while (System.nanoTime() < next) {
                    LockSupport.parkNanos(next - System.nanoTime());
                }
                sent[n] = System.nanoTime();
                publisher.publish(new Job(n));
                next = sent[n] + PACE_MICROS * 1000L;
                if (wake != Wake.POLL && !one.tryAcquire(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(db.name() + ": job " + n + " was not handled within 30 s of its"
                            + " publish, though a " + wake + " wake should have found it at once");
                }
            }
            if (!handled.await(2L * POLL_SECONDS + 60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(db.name() + ": " + handled.getCount() + " of " + total
                        + " published jobs were not handled in time");
            }
        } finally {
            if (other != null) {
                other.shutdown(Duration.ofSeconds(5));
            }
            subscriber.shutdown(Duration.ofSeconds(5));
        }
        double[] millis = new double[jobs];
        for (int n = 0; n < jobs; n++) {
            millis[n] = (started[WARM_UP + n] - sent[WARM_UP + n]) / 1e6;
        }
        Arrays.sort(millis);
        return new Percentiles(percentile(millis, 50), percentile(millis, 99));
    }

    /** The nearest-rank percentile of sorted values. */
    static double percentile(double[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }
}
