package dev.inbox.engine;

import static dev.inbox.engine.TestTable.Feature.ATTEMPT;
import static dev.inbox.engine.TestTable.Feature.LAST_ERROR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.DeadLetter;
import dev.inbox.DeadLetterFilter;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Publisher;
import dev.inbox.Subscription;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Dead letters retried and deleted many at a time, in every claim form on every database: by ids
 * (an id no letter has is passed over), by the text of their errors, by the time they failed, and
 * all of a queue.
 */
class DeadLetterBulkTest {
    private static final String TABLE = "bulk_jobs";
    private static final String DEAD = "bulk_dead";

    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        brokers.forEach(InboxBroker::shutdown);
    }

    static List<FormCase> cases() {
        return FormCase.all().toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void lettersAreRetriedAndDeletedByIdsByErrorByTimeAndAll(FormCase c) {
        TestDatabase db = c.db();
        TestTable table = TestTable.of(TABLE, c.form(), ATTEMPT, LAST_ERROR);
        table.create(db);
        table.createDeadLetter(db, DEAD);
        AtomicBoolean healthy = new AtomicBoolean();
        List<Integer> handled = new CopyOnWriteArrayList<>();
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("bulk", table.spec(), Job.class, (job, d) -> {
                    if (!healthy.get()) {
                        return Outcome.drop("gateway " + (job.n() % 2 == 0 ? "timed out" : "refused the card"));
                    }
                    handled.add(job.n());
                    return Outcome.ack();
                }).maxAttempts(3).deadLetter(DEAD))
                .connect();
        brokers.add(broker);
        Publisher<Job> publisher = broker.publisher("bulk", Job.class);
        Map<Integer, Object> ids = new HashMap<>();
        for (int n = 1; n <= 6; n++) {
            ids.put(n, publisher.publish(new Job(n)).id());
        }
        Eventually.await(() -> db.count(DEAD) == 6, Duration.ofSeconds(10), () -> db.count(DEAD) + " of 6 dead");

        healthy.set(true);
        assertThat(broker.retryDeadLetters("bulk", DeadLetterFilter.ALL.errorContaining("refused"))).isEqualTo(3);
        Eventually.await(() -> handled.size() == 3, Duration.ofSeconds(10), () -> handled + " handled");
        assertThat(handled).containsExactlyInAnyOrder(1, 3, 5);
        assertThat(broker.deadLetters("bulk", 10)).extracting(DeadLetter::id)
                .containsExactlyInAnyOrder(ids.get(2), ids.get(4), ids.get(6));

        assertThat(broker.retryDeadLetters("bulk", DeadLetterFilter.ids(List.of(ids.get(2), ids.get(1)))))
                .as("letter 1 is gone: passed over").isEqualTo(1);
        assertThat(broker.deleteDeadLetters("bulk", DeadLetterFilter.ids(List.of(ids.get(4), 987_654_321L))))
                .isEqualTo(1);
        assertThat(broker.deleteDeadLetters("bulk", DeadLetterFilter.ALL.failedBefore(Instant.now().minusSeconds(3600))))
                .as("none failed an hour ago").isZero();
        assertThat(broker.deleteDeadLetters("bulk", DeadLetterFilter.ALL.errorContaining("no such error"))).isZero();
        assertThat(broker.deleteDeadLetters("bulk", DeadLetterFilter.ALL.failedBefore(Instant.now().plusSeconds(60))))
                .isEqualTo(1);
        assertThat(db.count(DEAD)).isZero();
        Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(10), () -> "job 2 handled again");
        assertThat(handled).containsExactlyInAnyOrder(1, 3, 5, 2);
        assertThat(broker.retryDeadLetters("bulk", DeadLetterFilter.ALL)).as("no letters left").isZero();

        assertThatThrownBy(() -> broker.retryDeadLetters("nowhere", DeadLetterFilter.ALL))
                .isInstanceOfSatisfying(InboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(InboxException.Kind.NOT_FOUND));
    }
}
