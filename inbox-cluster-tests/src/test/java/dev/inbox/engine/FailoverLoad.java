package dev.inbox.engine;

import dev.inbox.Delivery;
import dev.inbox.Outcome;
import dev.inbox.Publisher;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * The load of a failover case: a thread per queue publishes job 0 to {@code jobs - 1}, each once (a
 * publish that fails is not repeated, since it may have committed), and keeps at most
 * {@link #BACKLOG} jobs ahead of the queue's handler so that publishing lasts as long as the drain.
 * Records which publish calls returned and what each queue's handler was given.
 */
final class FailoverLoad {
    /** How far a publisher runs ahead of its queue's handler. */
    static final int BACKLOG = 400;
    static final String EFFECTS = "failover_effects";
    /** The job in work when the primary goes (the cases' kill point is 500 handled) that runs {@link #SLOW}. */
    static final int SLOW_JOB = 490;
    /** Longer than the cases' lease. */
    static final Duration SLOW = Duration.ofSeconds(12);

    private final int jobs;
    /** Jobs whose publish returned, by queue: these must all be handled. */
    final Set<Integer> publishedTx = ConcurrentHashMap.newKeySet();
    final Set<Integer> publishedPlain = ConcurrentHashMap.newKeySet();
    /** Publish calls that failed, by queue: whether their row committed is not known. */
    final AtomicInteger txPublishFailures = new AtomicInteger();
    final AtomicInteger plainPublishFailures = new AtomicInteger();
    /** Calls of the transactional handler by job: more than one where a delivery's transaction was lost. */
    final Map<Integer, AtomicInteger> txCalls = new ConcurrentHashMap<>();
    final Set<Integer> plainHandled = ConcurrentHashMap.newKeySet();
    private final Set<Integer> txInWork = ConcurrentHashMap.newKeySet();
    private final Set<Integer> plainInWork = ConcurrentHashMap.newKeySet();
    private final Set<Integer> txSlowDone = ConcurrentHashMap.newKeySet();
    private final Set<Integer> plainSlowDone = ConcurrentHashMap.newKeySet();
    /** Deliveries of a job that began while an earlier one of the same job still ran. */
    final AtomicInteger txOverlaps = new AtomicInteger();
    final AtomicInteger plainOverlaps = new AtomicInteger();
    private final List<Thread> threads = new ArrayList<>();
    private volatile Throwable died;

    FailoverLoad(int jobs) {
        this.jobs = jobs;
    }

    /** The transactional handler: one effect row per delivery, in the delivery's transaction. */
    Outcome effect(FailoverJob job, Delivery delivery) throws Exception {
        txCalls.computeIfAbsent(job.n(), n -> new AtomicInteger()).incrementAndGet();
        work(job, txInWork, txSlowDone, txOverlaps);
        try (PreparedStatement ps = delivery.connection().prepareStatement("INSERT INTO " + EFFECTS + " (n) VALUES (?)")) {
            ps.setInt(1, job.n());
            ps.executeUpdate();
        }
        return Outcome.ack();
    }

    /** The other queue's handler: no transaction, its acks batched by the engine. */
    Outcome plain(FailoverJob job, Delivery delivery) throws InterruptedException {
        work(job, plainInWork, plainSlowDone, plainOverlaps);
        plainHandled.add(job.n());
        return Outcome.ack();
    }

    /**
     * The first delivery of {@link #SLOW_JOB} outlasts the lease and the failover, so that its
     * keeper must extend the lease on the new primary; counts a delivery of a job whose earlier
     * delivery still runs.
     */
    private static void work(FailoverJob job, Set<Integer> inWork, Set<Integer> slowDone, AtomicInteger overlaps)
            throws InterruptedException {
        if (!inWork.add(job.n())) {
            overlaps.incrementAndGet();
            return;
        }
        try {
            if (job.n() == SLOW_JOB && slowDone.add(job.n())) {
                Thread.sleep(SLOW.toMillis());
            }
        } finally {
            inWork.remove(job.n());
        }
    }

    /** Which queues have {@link #SLOW_JOB} in work now. */
    String slowInWork() {
        return (txInWork.contains(SLOW_JOB) ? "tx" : "") + (plainInWork.contains(SLOW_JOB) ? "+plain" : "");
    }

    /** Starts one publishing thread per queue. */
    void start(Publisher<FailoverJob> tx, Publisher<FailoverJob> plain) {
        threads.add(publisher(tx, publishedTx, txPublishFailures, txCalls::size));
        threads.add(publisher(plain, publishedPlain, plainPublishFailures, plainHandled::size));
        threads.forEach(Thread::start);
    }

    private Thread publisher(Publisher<FailoverJob> publisher, Set<Integer> published, AtomicInteger failures,
            IntSupplier handled) {
        return new Thread(() -> {
            try {
                for (int n = 0; n < jobs; n++) {
                    while (n - handled.getAsInt() > BACKLOG) {
                        Thread.sleep(2);
                    }
                    try {
                        publisher.publish(new FailoverJob(n));
                        published.add(n);
                    } catch (RuntimeException e) {
                        failures.incrementAndGet();
                    }
                }
            } catch (Throwable e) {
                died = e;
            }
        }, "failover-publisher-" + publisher.queue());
    }

    /** True once every job had its publish calls; fails with what stopped a publisher. */
    boolean published() {
        if (died != null) {
            throw new AssertionError("a publisher stopped", died);
        }
        return threads.stream().noneMatch(Thread::isAlive);
    }

    void stop() throws InterruptedException {
        for (Thread thread : threads) {
            thread.interrupt();
            thread.join(10_000);
        }
    }

    /** The payload. */
    record FailoverJob(int n) {}
}
