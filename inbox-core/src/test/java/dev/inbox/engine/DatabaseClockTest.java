package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.QueueClock;
import dev.inbox.Subscription;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A table on the database's clock (SPEC §5): on PostgreSQL its times are judged by
 * {@code statement_timestamp()}, whatever the hosts' clocks say; elsewhere it is refused at open.
 */
class DatabaseClockTest {
    /** A host clock an hour ahead of the database's. */
    private static final Clock AHEAD = Clock.offset(Clock.systemUTC(), Duration.ofHours(1));

    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        brokers.forEach(InboxBroker::shutdown);
    }

    private static InboxSpec table(ClaimForm form) {
        return TestTable.of("dbclock_jobs", form, TestTable.Feature.ATTEMPT, TestTable.Feature.RETRY_AFTER).spec()
                .clock(QueueClock.DATABASE);
    }

    private InboxBroker connect(InboxBroker broker) {
        InboxBroker connected = broker.connect();
        brokers.add(connected);
        return connected;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ClaimForm.class, names = {"ROW_LOCK", "ADVISORY"})
    void aDelayIsJudgedByTheDatabaseEvenWhenThePublishersClockIsAnHourAhead(ClaimForm form) {
        TestDatabase db = TestDatabase.POSTGRES;
        TestTable.of("dbclock_jobs", form, TestTable.Feature.ATTEMPT, TestTable.Feature.RETRY_AFTER).create(db);
        List<Long> handledAfter = new CopyOnWriteArrayList<>();
        InboxBroker publisher = connect(InboxBroker.fromDataSource(db.dataSource()).clock(AHEAD)
                .route("dbclock", table(form)));
        long start = System.nanoTime();
        connect(InboxBroker.fromDataSource(db.dataSource()).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("dbclock", table(form), Job.class, (job, d) -> {
                    handledAfter.add((System.nanoTime() - start) / 1_000_000);
                    return Outcome.ack();
                })));
        // On the host's clock the row would be due an hour and two seconds from now for the subscriber.
        publisher.publisher("dbclock", Job.class).publish(new Job(1), PublishOptions.NONE.delay(Duration.ofSeconds(2)));
        Eventually.await(() -> !handledAfter.isEmpty(), Duration.ofSeconds(15), () -> "handled");
        assertThat(handledAfter.get(0)).as("ms from the publish").isBetween(1_500L, 10_000L);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ClaimForm.class, names = {"ROW_LOCK", "ADVISORY"})
    void aRetryAndARowAnotherWriterDelayedAreDueByTheDatabasesClock(ClaimForm form) {
        TestDatabase db = TestDatabase.POSTGRES;
        TestTable.of("dbclock_jobs", form, TestTable.Feature.ATTEMPT, TestTable.Feature.RETRY_AFTER).create(db);
        List<String> seen = new CopyOnWriteArrayList<>();
        long start = System.nanoTime();
        connect(InboxBroker.fromDataSource(db.dataSource()).clock(AHEAD).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("dbclock", table(form), Job.class, (job, d) -> {
                    seen.add("job " + job.n() + " attempt " + d.attempt() + " at "
                            + (System.nanoTime() - start) / 1_000_000);
                    return d.attempt() == 1 && job.n() == 1 ? Outcome.retry(Duration.ofSeconds(2)) : Outcome.ack();
                })));
        // Written by another program on the database's clock: due in three seconds.
        db.execute("INSERT INTO dbclock_jobs (payload, retry_after) VALUES (convert_to('{\"n\":2}', 'UTF8'),"
                + " now() + INTERVAL '3 seconds')");
        db.execute("INSERT INTO dbclock_jobs (payload) VALUES (convert_to('{\"n\":1}', 'UTF8'))");
        Eventually.await(() -> db.count("dbclock_jobs") == 0, Duration.ofSeconds(20), () -> "handled: " + seen);
        assertThat(seen).hasSize(3);
        assertThat(at(seen, "job 1 attempt 2")).as("the retry's two seconds, not an hour early")
                .isGreaterThanOrEqualTo(at(seen, "job 1 attempt 1") + 1_500);
        assertThat(at(seen, "job 2 attempt 1")).as("the other writer's three seconds").isGreaterThanOrEqualTo(2_500);
    }

    private static long at(List<String> seen, String what) {
        return seen.stream().filter(s -> s.startsWith(what + " at ")).mapToLong(s -> Long.parseLong(
                s.substring(s.lastIndexOf(' ') + 1))).findFirst().orElseThrow(() -> new AssertionError(what + ": " + seen));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "CONNECTOR_J", "MYSQL", "SQLITE"})
    void aTableOnTheDatabasesClockIsRefusedWhereItCannotBeRead(TestDatabase db) {
        TestTable.of("dbclock_jobs", ClaimForm.ADVISORY, TestTable.Feature.RETRY_AFTER).create(db);
        InboxSpec spec = TestTable.of("dbclock_jobs", ClaimForm.ADVISORY, TestTable.Feature.RETRY_AFTER).spec()
                .clock(QueueClock.DATABASE);
        assertThatThrownBy(() -> connect(InboxBroker.fromDataSource(db.dataSource()).route("dbclock", spec)))
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                    assertThat(e.getMessage()).contains("table dbclock_jobs is on the database's clock",
                            "PostgreSQL only", "QueueClock.HOST");
                });
    }
}
