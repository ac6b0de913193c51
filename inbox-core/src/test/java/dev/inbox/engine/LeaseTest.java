package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.spi.BrokerListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The lease form of SPEC §4: kept alive by the keeper while a handler runs; lost only when extension stops. */
class LeaseTest {
    private static final String TABLE = "lease_jobs";

    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();
    private final List<String> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        brokers.forEach(b -> b.shutdown(Duration.ofSeconds(5)));
    }

    private InboxBroker broker(TestDatabase db, String name, Duration lease, Subscription<Job> subscription) {
        return broker(InboxBroker.fromUrl(db.url()), name, lease, subscription);
    }

    private InboxBroker broker(InboxBroker configured, String name, Duration lease, Subscription<Job> subscription) {
        InboxBroker broker = configured.pollInterval(Duration.ofMillis(100)).lease(lease)
                .listener(new BrokerListener() {
                    @Override
                    public void settled(String queue, Object id, int attempt, Outcome outcome) {
                        events.add(name + " " + outcome + " attempt " + attempt);
                    }

                    @Override
                    public void settlementFailed(String queue, Object id, Outcome outcome, InboxException error) {
                        events.add(name + " " + outcome + " failed " + error.kind());
                    }
                })
                .subscribe(subscription);
        brokers.add(broker);
        return broker;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aHandlerRunningThreeLeasesIsKeptAliveAndSettles(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        Spans spans = new Spans();
        Subscription<Job> slow = Subscription.of("leases", Job.leaseTable(TABLE), Job.class, (job, d) -> {
            long start = System.nanoTime();
            Thread.sleep(3_200); // more than three leases of one second
            spans.record(job.n(), start, "slow");
            return Outcome.ack();
        });
        InboxBroker a = broker(db, "a", Duration.ofSeconds(1), slow).connect();
        // A second broker claims all the while: it would take the row if the lease ran out.
        broker(db, "b", Duration.ofSeconds(1), slow).connect();
        a.publisher("leases", Job.class).publish(new Job(0));
        Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(20), () -> "the row settled: " + events);
        Thread.sleep(1_500);
        assertThat(events).hasSize(1).allMatch(e -> e.endsWith("ack attempt 1"));
        spans.assertEachHandledOnceWithoutOverlap(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aLeaseThatRunsOutIsTakenAgainAndTheLateSettlementFailsWithLeaseLost(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        CountDownLatch claimedByA = new CountDownLatch(1);
        CountDownLatch handledByB = new CountDownLatch(1);
        List<String> handled = new CopyOnWriteArrayList<>();
        // a's keeper cannot reach the database: its lease runs out under the handler.
        OutageDataSource keeperOutage = new OutageDataSource(db.dataSource(), "-keeper").refuse(Integer.MAX_VALUE);
        InboxBroker a = broker(InboxBroker.fromDataSource(keeperOutage), "a", Duration.ofSeconds(1),
                Subscription.of("leases", Job.leaseTable(TABLE), Job.class, (job, d) -> {
                    handled.add("a attempt " + d.attempt());
                    claimedByA.countDown();
                    handledByB.await(30, TimeUnit.SECONDS);
                    return Outcome.ack();
                })).connect();
        a.publisher("leases", Job.class).publish(new Job(2));
        assertThat(claimedByA.await(10, TimeUnit.SECONDS)).isTrue();

        broker(db, "b", Duration.ofSeconds(30),
                Subscription.of("leases", Job.leaseTable(TABLE), Job.class, (job, d) -> {
                    handled.add("b attempt " + d.attempt());
                    handledByB.countDown();
                    return Outcome.ack();
                })).connect();
        assertThat(handledByB.await(15, TimeUnit.SECONDS)).as("b takes the row once a's lease ran out").isTrue();
        Eventually.await(() -> events.size() == 2, Duration.ofSeconds(10), () -> "both settled: " + events);

        // a's free room may claim the row again each time its unkept lease runs out, so b's attempt
        // can be above 2; those copies expire in a's buffer and are never handled.
        assertThat(handled).hasSize(2).first().isEqualTo("a attempt 1");
        String bAttempt = handled.get(1);
        assertThat(bAttempt).startsWith("b attempt ");
        assertThat(events).containsExactlyInAnyOrder("b ack " + bAttempt.substring(2), "a ack failed LEASE_LOST");
        assertThat(db.count(TABLE)).isZero();
    }
}
