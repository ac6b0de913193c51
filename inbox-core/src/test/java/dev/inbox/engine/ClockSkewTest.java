package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.spi.BrokerListener;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The lease form reads the host's clock. A process whose clock runs 5 s behind writes expiries 5 s
 * early as others read them; its keeper extends them each half lease, so with a lease longer than
 * twice the skew no other process ever finds one of its leases ended while its handler runs.
 */
class ClockSkewTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aRowLeasedByAProcessFiveSecondsBehindIsNeverTakenWhileItsHandlerRuns(TestDatabase db) throws Exception {
        TestTable table = TestTable.of("skew_jobs", ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        CountDownLatch claimed = new CountDownLatch(1);
        List<String> handled = new CopyOnWriteArrayList<>();
        List<InboxException.Kind> failures = new CopyOnWriteArrayList<>();
        InboxBroker behind = InboxBroker.fromUrl(db.url()).clock(Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-5)))
                .lease(Duration.ofSeconds(12)).pollInterval(Duration.ofMillis(50))
                .listener(new BrokerListener() {
                    @Override
                    public void settlementFailed(String queue, Object id, Outcome outcome, InboxException error) {
                        failures.add(error.kind());
                    }
                })
                .subscribe(Subscription.of("skew", table.spec(), Job.class, (job, d) -> {
                    handled.add("behind");
                    claimed.countDown();
                    Thread.sleep(14_000); // longer than the lease: the keeper must hold the row
                    return Outcome.ack();
                }))
                .connect();
        InboxBroker onTime = null;
        try {
            behind.publisher("skew", Job.class).publish(new Job(1));
            assertThat(claimed.await(10, TimeUnit.SECONDS)).isTrue();
            onTime = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                    .subscribe(Subscription.of("skew", table.spec(), Job.class, (job, d) -> {
                        handled.add("on time");
                        return Outcome.ack();
                    }))
                    .connect();
            Eventually.await(() -> db.count(table.name()) == 0, Duration.ofSeconds(30),
                    () -> "the row settled: " + handled);
        } finally {
            behind.shutdown();
            if (onTime != null) {
                onTime.shutdown();
            }
        }
        assertThat(handled).containsExactly("behind");
        assertThat(failures).isEmpty();
    }
}
