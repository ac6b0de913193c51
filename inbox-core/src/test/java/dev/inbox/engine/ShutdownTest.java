package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Outcome;
import dev.inbox.ShutdownReport;
import dev.inbox.Subscription;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Shutdown as SPEC §7 step 5 says, in the lease form. */
class ShutdownTest {
    private static final String TABLE = "shutdown_jobs";

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void deliveriesInWorkSettleAsBeforeAndNothingMoreIsClaimed(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch finish = new CountDownLatch(1);
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("shutdown", Job.leaseTable(TABLE), Job.class, (job, d) -> {
                    started.countDown();
                    finish.await(30, TimeUnit.SECONDS);
                    return Outcome.ack();
                }).workers(2))
                .connect();
        for (int i = 0; i < 5; i++) {
            broker.publisher("shutdown", Job.class).publish(new Job(i));
        }
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<ShutdownReport> report = CompletableFuture.supplyAsync(() -> broker.shutdown(Duration.ofSeconds(20)));
        Thread.sleep(300);
        assertThat(report).isNotDone(); // it waits for the two handlers in work
        finish.countDown();
        ShutdownReport done = report.get(20, TimeUnit.SECONDS);

        // Up to one row per worker waited in the buffer beside them; those go back as they were.
        assertThat(done.rowsReleased()).isBetween(0, 2);
        assertThat(done.handlersCutOff()).isZero();
        assertThat(done.connectionsClosed()).as("every session given back to the pool").isZero();
        assertThat(db.count(TABLE)).as("the two in work acked, three never worked").isEqualTo(3);
        assertThat(db.count(TABLE + " WHERE locked_until IS NULL AND attempt = 1"))
                .as("free, and no attempt spent on any of them").isEqualTo(3);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aHandlerStillRunningAtTheDrainTimeoutDropsItsDeliveryAndTheRowIsBackAtOnce(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("shutdown", Job.leaseTable(TABLE), Job.class, (job, d) -> {
                    started.countDown();
                    try {
                        Thread.sleep(60_000);
                    } catch (InterruptedException e) {
                        interrupted.set(true);
                        throw e;
                    }
                    return Outcome.ack();
                }))
                .connect();
        broker.publisher("shutdown", Job.class).publish(new Job(1));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        ShutdownReport report = broker.shutdown(Duration.ofMillis(300));

        assertThat(report.handlersCutOff()).isEqualTo(1);
        assertThat(report.rowsReleased()).isEqualTo(1);
        Eventually.await(interrupted::get, Duration.ofSeconds(5), () -> "the cut-off handler was interrupted");
        assertThat(db.count(TABLE + " WHERE locked_until IS NULL AND attempt = 2"))
                .as("released at once, the attempt spent").isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void theApplicationsDataSourceIsNeverClosed(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource())
                .subscribe(Subscription.of("shutdown", Job.leaseTable(TABLE), Job.class, (job, d) -> Outcome.ack()))
                .connect();
        ShutdownReport report = broker.shutdown();
        assertThat(report.connectionsClosed()).isZero();
        try (Connection c = db.dataSource().getConnection()) {
            assertThat(c.isValid(2)).isTrue();
        }
        assertThat(broker.shutdown()).isSameAs(report);
    }
}
