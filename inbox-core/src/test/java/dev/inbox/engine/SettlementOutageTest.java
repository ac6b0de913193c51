package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.spi.BrokerListener;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Settlements that fail for a while (the queue table is renamed away under handlers in work): the
 * outage is logged once however many rows it catches, its recovery once, and every row comes back
 * when its lease ends and is handled.
 */
class SettlementOutageTest {
    private static final String TABLE = "outage_jobs";
    private static final int JOBS = 8;

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "CONNECTOR_J", "MYSQL"})
    void anOutageOfSettlementsIsLoggedOnceAndLosesNothing(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        db.execute("DROP TABLE IF EXISTS " + TABLE + "_away");
        CountDownLatch firstInWork = new CountDownLatch(4);
        CountDownLatch renamed = new CountDownLatch(1);
        AtomicInteger failedSettlements = new AtomicInteger();
        Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
        List<String> logged = LogCapture.during(() -> {
            InboxBroker broker = InboxBroker.fromUrl(db.url()).lease(Duration.ofSeconds(1))
                    .pollInterval(Duration.ofMillis(100))
                    .listener(new BrokerListener() {
                        @Override
                        public void settlementFailed(String queue, Object id, Outcome outcome, InboxException error) {
                            failedSettlements.incrementAndGet();
                        }
                    })
                    .subscribe(Subscription.of("outage", Job.leaseTable(TABLE), Job.class, (job, d) -> {
                        firstInWork.countDown();
                        renamed.await(30, TimeUnit.SECONDS);
                        handled.computeIfAbsent(job.n(), n -> new AtomicInteger()).incrementAndGet();
                        return Outcome.ack();
                    }).workers(4))
                    .connect();
            try {
                for (int i = 0; i < JOBS; i++) {
                    broker.publisher("outage", Job.class).publish(new Job(i));
                }
                assertThat(firstInWork.await(10, TimeUnit.SECONDS)).isTrue();
                db.execute(db == TestDatabase.POSTGRES ? "ALTER TABLE " + TABLE + " RENAME TO " + TABLE + "_away"
                        : "RENAME TABLE " + TABLE + " TO " + TABLE + "_away");
                renamed.countDown();
                Eventually.await(() -> failedSettlements.get() >= 4, Duration.ofSeconds(20),
                        () -> failedSettlements.get() + " settlements failed");
                db.execute(db == TestDatabase.POSTGRES ? "ALTER TABLE " + TABLE + "_away RENAME TO " + TABLE
                        : "RENAME TABLE " + TABLE + "_away TO " + TABLE);
                Eventually.await(() -> handled.size() == JOBS && db.count(TABLE) == 0, Duration.ofSeconds(30),
                        () -> handled.size() + " handled, " + db.count(TABLE) + " rows left");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                broker.shutdown();
            }
        });
        long warnings = logged.stream().filter(l -> l.startsWith("WARNING") && l.contains("settling rows of table"))
                .count();
        System.out.printf("OUTAGE db=%s jobs=%d failed_settlements=%d settlement_warnings=%d handled_again=%d%n",
                db.name().toLowerCase(), JOBS, failedSettlements.get(), warnings,
                handled.values().stream().filter(n -> n.get() > 1).count());
        assertThat(failedSettlements.get()).isGreaterThanOrEqualTo(4);
        assertThat(warnings).as("one warning for the outage, not one per row").isEqualTo(1);
        assertThat(logged).anyMatch(l -> l.startsWith("INFO") && l.contains("settling rows of table " + TABLE
                + " recovered after"));
        assertThat(handled).hasSize(JOBS);
    }
}
