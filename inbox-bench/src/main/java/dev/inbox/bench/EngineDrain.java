package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.Delivery;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.bench.meter.Meter;
import dev.inbox.engine.InboxBroker;
import dev.inbox.spi.BrokerListener;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Drains the queue table through a broker. The broker connects to the empty table first, so its
 * start is not measured; the jobs are then inserted in one transaction, the clock starts and the
 * subscription is woken. The clock stops when the last job has settled (each job once, however
 * often it was delivered).
 */
final class EngineDrain {
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private EngineDrain() {}

    /**
     * Measures the drain. No-op handlers ack; a transactional subscription's handler inserts
     * one row into {@code bench_effects} through the delivery's connection.
     */
    static Meter.Measured run(BenchDatabase db, ClaimForm form, int workers, int batch, int jobs, boolean transactional)
            throws Exception {
        db.create(form);
        CountDownLatch settled = new CountDownLatch(jobs);
        // Each job counts once: a row delivered twice is wasted work, and Bench checks the effects for it.
        Set<Object> settledIds = ConcurrentHashMap.newKeySet(2 * jobs); // sized once: no rehash while measured
        Subscription<Object> subscription = Subscription.of(BenchDatabase.QUEUE, db.spec(form), Object.class,
                        transactional ? EngineDrain::writeEffect : (payload, delivery) -> Outcome.ack())
                .workers(workers).batchSize(batch).transactional(transactional)
                // Tuned for throughput, as a drain of a full table wants: while one batch is claimed another waits.
                .prefetch(2 * batch);
        // Room for every claim, settlement, keeper and delivery transaction, so none waits for the pool.
        InboxBroker broker = InboxBroker.fromUrl(db.url()).connectionLimit(2 * workers + 4)
                .listener(new BrokerListener() {
                    @Override
                    public void settled(String queue, Object id, int attempt, Outcome outcome) {
                        if (settledIds.add(id)) {
                            settled.countDown();
                        }
                    }
                })
                .subscribe(subscription)
                .connect();
        try {
            db.insertJobs(jobs);
            Meter meter = Meter.start();
            broker.wake(BenchDatabase.QUEUE);
            if (!settled.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the engine did not drain " + jobs + " jobs in " + TIMEOUT + "; "
                        + settled.getCount() + " are left (" + db.name() + ", " + form + ", " + workers + " workers)");
            }
            return meter.stop(jobs);
        } finally {
            broker.shutdown(Duration.ofSeconds(5));
        }
    }

    private static Outcome writeEffect(Object payload, Delivery delivery) throws Exception {
        try (PreparedStatement ps = delivery.connection().prepareStatement(BenchDatabase.EFFECT_INSERT)) {
            ps.setObject(1, delivery.id());
            ps.executeUpdate();
        }
        return Outcome.ack();
    }
}
