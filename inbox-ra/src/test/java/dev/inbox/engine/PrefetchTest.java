package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.testkit.InboxTestKit;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The buffer of claimed rows: behind busy workers a subscription holds at most its prefetch more. */
class PrefetchTest {
    private static final String TABLE = "prefetch_jobs";

    @ParameterizedTest(name = "workers={0} prefetch={1}")
    @CsvSource({"1, -1, 2", "1, 0, 1", "2, -1, 4", "1, 3, 4"})
    void busyWorkersHoldAtMostTheirPrefetchMore(int workers, int prefetch, int held) throws Exception {
        TestDatabase db = TestDatabase.POSTGRES;
        db.createLeaseTable(TABLE);
        CountDownLatch started = new CountDownLatch(workers);
        CountDownLatch finish = new CountDownLatch(1);
        Subscription<Job> subscription = Subscription.of("prefetch", Job.leaseTable(TABLE), Job.class, (job, d) -> {
            started.countDown();
            finish.await(30, TimeUnit.SECONDS);
            return Outcome.ack();
        }).workers(workers);
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(20))
                .subscribe(prefetch < 0 ? subscription : subscription.prefetch(prefetch)).connect();
        try {
            broker.publisher("prefetch", Job.class).publishAll(java.util.stream.IntStream.range(0, 10)
                    .mapToObj(Job::new).toList());
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            InboxTestKit.await(() -> db.count(TABLE + " WHERE locked_until IS NOT NULL") == held,
                    Duration.ofSeconds(5), () -> db.count(TABLE + " WHERE locked_until IS NOT NULL") + " held");
            Thread.sleep(300); // several polls: still no more
            assertThat(db.count(TABLE + " WHERE locked_until IS NOT NULL")).isEqualTo(held);
        } finally {
            finish.countDown();
            broker.shutdown();
        }
        // Rows in work acked (and waiting ones a worker took before the stop); the rest given back unspent.
        assertThat(db.count(TABLE)).isBetween((long) 10 - held, (long) 10 - workers);
        assertThat(db.count(TABLE + " WHERE locked_until IS NULL AND attempt = 1")).isEqualTo(db.count(TABLE));
    }
}
