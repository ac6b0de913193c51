package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Column;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.Publisher;
import dev.inbox.Subscription;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Publishing for later: a job published with a due time ({@code at}) or a delay is not handled
 * before its time, and is handled within a poll interval after it; a time already past is due at
 * once; a table with no column to hold a due time refuses the publish naming the column.
 */
class DelayedPublishTest {
    private static final String TABLE = "delayed_jobs";
    private static final Duration POLL = Duration.ofMillis(200);
    /** Room for a claim, a handler and a busy two-core machine beyond the poll interval. */
    private static final Duration SLACK = Duration.ofMillis(800);

    private final Map<Integer, Instant> handled = new ConcurrentHashMap<>();
    private InboxBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.shutdown();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void aJobDueLaterIsHandledNotBeforeItsTimeAndWithinAPollIntervalAfterIt(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        broker = InboxBroker.fromDataSource(db.dataSource()).pollInterval(POLL)
                .subscribe(Subscription.of("later", Job.leaseTable(TABLE), Job.class, (job, d) -> {
                    handled.put(job.n(), Instant.now());
                    return Outcome.ack();
                }))
                .connect();
        Publisher<Job> publisher = broker.publisher("later", Job.class);
        Instant at = Instant.now().plusMillis(1500);
        Instant published = Instant.now();
        publisher.publish(new Job(1), PublishOptions.NONE.at(at));
        publisher.publish(new Job(2), PublishOptions.NONE.delay(Duration.ofMillis(1500)));
        publisher.publish(new Job(3), PublishOptions.NONE.at(Instant.now().minusSeconds(60)));
        Eventually.await(() -> handled.size() == 3, Duration.ofSeconds(10), () -> "handled " + handled);

        // The database keeps the due time as it keeps times (MySQL and MariaDB: whole seconds, rounded up).
        Instant due = db.dialect().deadline(at, Duration.ZERO);
        assertThat(handled.get(1)).as("not before its time").isAfterOrEqualTo(at)
                .as("within a poll interval after it").isBefore(due.plus(POLL).plus(SLACK));
        Instant dueAfterDelay = db.dialect().deadline(published, Duration.ofMillis(1500));
        assertThat(handled.get(2)).isAfterOrEqualTo(published.plusMillis(1500))
                .isBefore(dueAfterDelay.plus(POLL).plus(SLACK));
        assertThat(handled.get(3)).as("a time past is due at once").isBefore(handled.get(1));
    }

    @Test
    void aTableWithoutADueColumnRefusesADelayNamingTheColumn() {
        TestDatabase db = TestDatabase.POSTGRES;
        db.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (id BIGSERIAL PRIMARY KEY,"
                + " payload BYTEA NOT NULL)");
        InboxSpec rowLock = InboxSpec.table(TABLE, Column.of("id").generated()).payload(Column.of("payload"));
        broker = InboxBroker.fromDataSource(db.dataSource()).route("later", rowLock).connect();
        Publisher<Job> publisher = broker.publisher("later", Job.class);
        for (PublishOptions options : new PublishOptions[] {PublishOptions.NONE.at(Instant.now().plusSeconds(5)),
                PublishOptions.NONE.delay(Duration.ofSeconds(5))}) {
            assertThatThrownBy(() -> publisher.publish(new Job(1), options))
                    .isInstanceOfSatisfying(InboxException.class,
                            e -> assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION))
                    .hasMessageContainingAll("a publish delay or due time needs a retry_after column",
                            "table " + TABLE + " has none");
        }
        assertThat(db.count(TABLE)).isZero();
    }
}
