package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pausing a queue: claims stop on every broker sharing the database (two brokers stand for two
 * servers) within a poll interval, a delivery in work finishes, the pause outlives a restart, and
 * resuming on the other broker drains the queue. Without the pause table, pausing fails naming it.
 */
class PauseTest {
    private static final String TABLE = "pause_jobs";
    private static final String PAUSES = "inbox_paused";
    private static final Duration POLL = Duration.ofMillis(100);

    private final List<Integer> handled = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        release.countDown();
        brokers.forEach(InboxBroker::shutdown);
    }

    private InboxBroker broker(TestDatabase db, CountDownLatch holding) {
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).pollInterval(POLL)
                .subscribe(Subscription.of("paused", Job.leaseTable(TABLE), Job.class, (job, d) -> {
                    if (job.n() == 0) {
                        holding.countDown();
                        release.await(); // in work across the pause
                    }
                    handled.add(job.n());
                    return Outcome.ack();
                }).workers(2))
                .connect();
        brokers.add(broker);
        return broker;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void aPauseStopsClaimsOnEveryBrokerAndAResumeOnAnotherDrainsTheQueue(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        String time = switch (db) {
            case POSTGRES -> "TIMESTAMPTZ";
            case SQLITE -> "TEXT";
            default -> "DATETIME";
        };
        db.execute("DROP TABLE IF EXISTS " + PAUSES,
                "CREATE TABLE " + PAUSES + " (queue VARCHAR(200) PRIMARY KEY, paused_at " + time + " NOT NULL)");
        CountDownLatch holding = new CountDownLatch(1);
        InboxBroker first = broker(db, holding);
        InboxBroker second = broker(db, holding);
        first.publisher("paused", Job.class).publish(new Job(0));
        assertThat(holding.await(10, TimeUnit.SECONDS)).as("job 0 in work").isTrue();

        first.pause("paused");
        first.pause("paused"); // twice: still one pause
        assertThat(first.paused()).containsExactly("paused");
        Thread.sleep(5 * POLL.toMillis()); // the other broker reads the pause within one poll interval
        for (int n = 1; n <= 5; n++) {
            first.publisher("paused", Job.class).publish(new Job(n));
        }
        release.countDown();
        Eventually.await(() -> handled.contains(0), Duration.ofSeconds(10), () -> "job 0 finished: " + handled);
        Thread.sleep(10 * POLL.toMillis());
        assertThat(handled).as("only the job in work when the queue paused").containsExactly(0);
        assertThat(second.paused()).containsExactly("paused");
        assertThat(second.health().queues()).as("paused is neither down nor stuck").singleElement()
                .satisfies(q -> assertThat(q.paused()).isTrue()).satisfies(q -> assertThat(q.ready()).isTrue())
                .satisfies(q -> assertThat(q.live()).isTrue());
        assertThat(first.stats().get("paused").ready()).isEqualTo(5);

        // A broker that connects while the queue is paused claims nothing either.
        InboxBroker third = broker(db, holding);
        Thread.sleep(5 * POLL.toMillis());
        assertThat(handled).containsExactly(0);

        second.resume("paused");
        Eventually.await(() -> handled.size() == 6, Duration.ofSeconds(20), () -> "drained: " + handled);
        assertThat(handled).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
        assertThat(third.paused()).isEmpty();
        second.resume("paused"); // resuming a running queue changes nothing

        assertThatThrownBy(() -> first.pause("nowhere")).isInstanceOfSatisfying(InboxException.class,
                e -> assertThat(e.kind()).isEqualTo(InboxException.Kind.NOT_FOUND));
    }

    @Test
    void withoutThePauseTableNothingIsPausedAndPausingNamesTheTable() throws Exception {
        TestDatabase db = TestDatabase.SQLITE;
        db.createLeaseTable(TABLE);
        db.execute("DROP TABLE IF EXISTS " + PAUSES);
        InboxBroker broker = broker(db, new CountDownLatch(1));
        assertThat(broker.paused()).isEmpty();
        assertThatThrownBy(() -> broker.pause("paused")).isInstanceOfSatisfying(InboxException.class,
                e -> assertThat(e.kind()).isEqualTo(InboxException.Kind.SCHEMA))
                .hasMessageContainingAll("the pause table " + PAUSES + " was not there", "CREATE TABLE " + PAUSES);
        broker.publisher("paused", Job.class).publish(new Job(7));
        Eventually.await(() -> handled.contains(7), Duration.ofSeconds(10), () -> "handled: " + handled);
    }
}
