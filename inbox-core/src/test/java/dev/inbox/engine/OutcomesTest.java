package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Delivery;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Publisher;
import dev.inbox.ShutdownReport;
import dev.inbox.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Outcomes, decoding, waking and the closed broker, on each database. */
class OutcomesTest {
    private static final String TABLE = "outcome_jobs";

    private InboxBroker broker;
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final Map<Integer, Integer> attempts = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.shutdown(Duration.ofSeconds(5));
        }
    }

    private Publisher<Job> start(TestDatabase db, Duration poll, BiFunction<Job, Delivery, Outcome> handler) {
        db.createLeaseTable(TABLE);
        broker = InboxBroker.fromUrl(db.url()).pollInterval(poll).lease(Duration.ofSeconds(5))
                .subscribe(Subscription.of("outcomes", Job.leaseTable(TABLE), Job.class, (job, delivery) -> {
                    seen.add(job.n() + "@" + delivery.attempt());
                    attempts.merge(job.n(), 1, Integer::sum);
                    return handler.apply(job, delivery);
                }).workers(2))
                .connect();
        return broker.publisher("outcomes", Job.class);
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) {
        Eventually.await(condition, Duration.ofSeconds(20), () -> what);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void ackDeletesTheRow(TestDatabase db) {
        start(db, Duration.ofMillis(100), (job, d) -> Outcome.ack()).publish(new Job(1));
        await(() -> db.count(TABLE) == 0 && seen.size() == 1, "the acked row is gone");
        assertThat(seen).containsExactly("1@1");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void retryHandsTheRowBackWithTheAttemptCounted(TestDatabase db) {
        start(db, Duration.ofMillis(100), (job, d) -> d.attempt() < 3 ? Outcome.retry() : Outcome.ack())
                .publish(new Job(7));
        await(() -> db.count(TABLE) == 0, "the row is acked on its third attempt");
        assertThat(seen).containsExactly("7@1", "7@2", "7@3");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aThrownExceptionGivesTheRowBackForAnotherAttempt(TestDatabase db) {
        start(db, Duration.ofMillis(100), (job, d) -> {
            if (d.attempt() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
            return Outcome.ack();
        }).publish(new Job(3));
        await(() -> db.count(TABLE) == 0, "the row is acked on its second attempt");
        assertThat(seen).containsExactly("3@1", "3@2");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void retryWithDelayWaitsBeforeTheNextAttempt(TestDatabase db) {
        long[] times = new long[2];
        start(db, Duration.ofMillis(50), (job, d) -> {
            times[d.attempt() - 1] = System.nanoTime();
            return d.attempt() == 1 ? Outcome.retry(Duration.ofSeconds(2)) : Outcome.ack();
        }).publish(new Job(5));
        await(() -> db.count(TABLE) == 0, "the delayed retry is acked");
        // Whole-second databases round the due time up, so no database brings the row back early.
        assertThat(Duration.ofNanos(times[1] - times[0])).isGreaterThanOrEqualTo(Duration.ofMillis(1950));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void dropRemovesTheRow(TestDatabase db) {
        start(db, Duration.ofMillis(100), (job, d) -> Outcome.drop()).publish(new Job(9));
        await(() -> db.count(TABLE) == 0 && seen.size() == 1, "the dropped row is gone");
        assertThat(seen).containsExactly("9@1");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void anUndecodablePayloadIsDroppedNotRetried(TestDatabase db) throws Exception {
        start(db, Duration.ofMillis(100), (job, d) -> Outcome.ack());
        db.execute("INSERT INTO " + TABLE + " (payload) VALUES (" + (db == TestDatabase.POSTGRES
                ? "'\\x6e6f74206a736f6e'::bytea" : "'not json'") + ")");
        await(() -> db.count(TABLE) == 0, "the poison row is dropped");
        Thread.sleep(300);
        assertThat(seen).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aPublishWakesTheLocalSubscriptionAtOnce(TestDatabase db) throws Exception {
        Publisher<Job> publisher = start(db, Duration.ofSeconds(30), (job, d) -> Outcome.ack());
        Thread.sleep(300); // the first claim has found nothing and waits for its 30 s poll
        long start = System.nanoTime();
        publisher.publish(new Job(11));
        await(() -> seen.size() == 1, "the publish woke the subscription");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void publishAfterShutdownFailsWithClosed(TestDatabase db) {
        Publisher<Job> publisher = start(db, Duration.ofMillis(100), (job, d) -> Outcome.ack());
        ShutdownReport report = broker.shutdown();
        assertThat(report.connectionsClosed()).isZero();
        assertThatThrownBy(() -> publisher.publish(new Job(1)))
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(InboxException.Kind.CLOSED);
                    assertThat(e.getMessage()).contains("outcomes");
                });
        assertThat(db.count(TABLE)).isZero();
    }
}
