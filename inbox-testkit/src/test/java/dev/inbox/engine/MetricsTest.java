package dev.inbox.engine;

import static dev.inbox.engine.TestTable.Feature.ATTEMPT;
import static dev.inbox.engine.TestTable.Feature.PUBLISHED_AT;
import static dev.inbox.engine.TestTable.Feature.RETRY_AFTER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.ClaimForm;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.QueueStats;
import dev.inbox.Subscription;
import dev.inbox.spi.BrokerListener;
import dev.inbox.testkit.InboxTestKit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What metrics read: {@link InboxBroker#stats()} (ready, in work, scheduled, dead, the oldest
 * ready row's wait) against rows whose state the test knows, and the {@link BrokerListener}
 * events (publishes, claims, handler runs, how each delivery ended) of a known load.
 */
class MetricsTest {
    private static final String DEAD = "metrics_dead";

    private InboxTestKit kit;
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() {
        release.countDown();
        if (kit != null) {
            kit.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void statsAndListenerEventsMatchAKnownLoad(FormCase c) throws Exception {
        TestDatabase db = c.db();
        TestTable worked = TestTable.of("metrics_jobs", c.form(), ATTEMPT, RETRY_AFTER, PUBLISHED_AT);
        worked.create(db);
        worked.createDeadLetter(db, DEAD);
        // A queue nobody here subscribes to: its rows wait, so their depth and age are known.
        TestTable waiting = TestTable.of("metrics_waiting", c.form(), ATTEMPT, RETRY_AFTER, PUBLISHED_AT);
        waiting.create(db);
        Events events = new Events();
        CountDownLatch holding = new CountDownLatch(1);
        kit = InboxTestKit.on(db.dataSource())
                .configure(b -> b.pollInterval(Duration.ofMillis(50)).listener(events).route("waiting", waiting.spec()))
                .subscribe(Subscription.of("worked", worked.spec(), Job.class, (job, d) -> switch (job.n()) {
                    case 2 -> throw new IllegalStateException("job 2 always fails"); // retried once, then dead
                    case 3 -> Outcome.retry(Duration.ofHours(1));
                    case 4 -> {
                        holding.countDown();
                        release.await(); // in work until the test lets go
                        yield Outcome.ack();
                    }
                    default -> Outcome.ack();
                }).maxAttempts(2).retryBackoff(Duration.ofMillis(10)).deadLetter(DEAD).workers(2))
                .start();

        var waitingJobs = kit.publisher("waiting", Job.class);
        waitingJobs.publish(new Job(10));
        waitingJobs.publish(new Job(11));
        waitingJobs.publish(new Job(12), PublishOptions.NONE.delay(Duration.ofHours(1)));
        var jobs = kit.publisher("worked", Job.class);
        jobs.publishAll(List.of(new Job(1), new Job(2), new Job(3)));
        InboxTestKit.await(() -> events.count("finished ack") == 1 && events.count("finished dead_letter") == 1
                && events.count("finished retry") == 2, Duration.ofSeconds(20), () -> "events: " + events);
        jobs.publish(new Job(4));
        assertThat(holding.await(20, TimeUnit.SECONDS)).as("job 4 in work").isTrue();
        Thread.sleep(1_100); // the waiting rows' age passes a second

        Map<String, QueueStats> stats = kit.broker().stats();
        QueueStats waitingStats = stats.get("waiting");
        assertThat(waitingStats.ready()).isEqualTo(2);
        assertThat(waitingStats.scheduled()).as("published with a delay").isEqualTo(1);
        assertThat(waitingStats.inWork()).isZero();
        assertThat(waitingStats.dead()).isZero();
        assertThat(waitingStats.oldestReady()).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(30));

        QueueStats workedStats = stats.get("worked");
        assertThat(workedStats.inWork()).as("job 4").isEqualTo(1);
        assertThat(workedStats.ready()).as("nothing else due").isZero();
        assertThat(workedStats.scheduled()).as("job 3, retrying in an hour").isEqualTo(1);
        assertThat(workedStats.dead()).as("job 2").isEqualTo(1);
        assertThat(workedStats.oldestReady()).as("none ready").isEqualTo(Duration.ZERO);

        release.countDown();
        InboxTestKit.await(() -> events.count("finished ack") == 2, Duration.ofSeconds(20), () -> "events: " + events);
        assertThat(events.count("published waiting")).isEqualTo(3);
        assertThat(events.count("published worked")).isEqualTo(4);
        assertThat(events.count("handled")).as("job 2 twice").isEqualTo(5);
        assertThat(events.count("handled failing")).as("job 2 threw twice").isEqualTo(2);
        assertThat(events.count("claimed rows")).isEqualTo(5);
        assertThat(events.count("finished dead_letter")).isEqualTo(1);
        assertThat(events.count("finished retry")).as("job 2's first attempt, job 3").isEqualTo(2);
        assertThat(events.count("negative durations")).isZero();
        assertThat(kit.broker().stats().get("worked").inWork()).isZero();
    }

    /** A table without a published_at column reports no age rather than a wrong one. */
    @Test
    void aTableWithoutDueTimesHasNoOldestAge() {
        TestDatabase db = TestDatabase.SQLITE;
        TestTable plain = TestTable.of("metrics_plain", ClaimForm.LEASE, ATTEMPT, RETRY_AFTER);
        plain.create(db);
        kit = InboxTestKit.on(db.dataSource()).configure(b -> b.route("plain", plain.spec())).start();
        kit.publisher("plain", Job.class).publish(new Job(1));
        QueueStats stats = kit.broker().stats().get("plain");
        assertThat(stats.ready()).isEqualTo(1);
        assertThat(stats.oldestReady()).isNull();
    }

    /** Counts events by name; claims by the rows they took. */
    private static final class Events implements BrokerListener {
        private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

        private void add(String name, long n) {
            counts.computeIfAbsent(name, k -> new AtomicLong()).addAndGet(n);
        }

        long count(String name) {
            AtomicLong n = counts.get(name);
            return n == null ? 0 : n.get();
        }

        @Override
        public void published(String queue, int jobs) {
            add("published " + queue, jobs);
        }

        @Override
        public void claimed(String queue, int rows, Duration took) {
            add("claimed rows", rows);
            add("negative durations", took.isNegative() ? 1 : 0);
        }

        @Override
        public void handled(String queue, int jobs, Duration took, Throwable error) {
            add("handled", jobs);
            add("negative durations", took.isNegative() ? 1 : 0);
            if (error != null) {
                add("handled failing", jobs);
            }
        }

        @Override
        public void finished(String queue, Result result) {
            add("finished " + result.label(), 1);
        }

        @Override
        public String toString() {
            return counts.toString();
        }
    }
}
