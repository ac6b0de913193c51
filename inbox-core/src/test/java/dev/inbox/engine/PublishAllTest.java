package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.Subscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Publishing many jobs at once: one batch in one transaction, all or none. */
class PublishAllTest {
    private static final String TABLE = "publish_all_jobs";
    private final List<InboxBroker> brokers = new ArrayList<>();

    @AfterEach
    void stop() {
        brokers.forEach(InboxBroker::shutdown);
    }

    /** A payload Jackson cannot write: its getter throws. */
    record Unwritable(int n) {
        public String getBroken() {
            throw new IllegalStateException("not writable");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aBatchIsInsertedAndHandledAndAFailedOneInsertsNothing(TestDatabase db) {
        db.createLeaseTable(TABLE);
        Set<Integer> handled = ConcurrentHashMap.newKeySet();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofSeconds(30))
                .subscribe(Subscription.of("all", Job.leaseTable(TABLE), Job.class, (job, d) -> {
                    handled.add(job.n());
                    return Outcome.ack();
                }).workers(4))
                .connect();
        brokers.add(broker);

        // MariaDB Connector/J on MariaDB: one bulk command; MySQL Connector/J: one multi-row insert.
        broker.publisher("all", Job.class).publishAll(IntStream.range(0, 200).mapToObj(Job::new).toList());
        // The publish wakes the subscription: no waiting for the 30 s poll.
        Eventually.await(() -> handled.size() == 200 && db.count(TABLE) == 0, Duration.ofSeconds(20),
                () -> handled.size() + " handled");

        // A batch small enough for one statement (MySQL and MariaDB: one multi-row insert), each row its own payload.
        broker.publisher("all", Job.class).publishAll(IntStream.range(200, 240).mapToObj(Job::new).toList());
        Eventually.await(() -> handled.size() == 240 && db.count(TABLE) == 0, Duration.ofSeconds(20),
                () -> handled.size() + " handled");
        assertThat(handled).containsAll(IntStream.range(200, 240).boxed().toList());

        InboxBroker publisherOnly = InboxBroker.fromUrl(db.url()).route("all", Job.leaseTable(TABLE)).connect();
        brokers.add(publisherOnly);
        List<Object> mixed = List.of(new Job(1000), new Unwritable(1001));
        assertThatThrownBy(() -> publisherOnly.publisher("all", Object.class).publishAll(mixed))
                .isInstanceOf(InboxException.class).hasMessageContaining("cannot be written as JSON");
        assertThat(db.count(TABLE)).as("the batch's first row was rolled back with the rest").isZero();

        assertThatThrownBy(() -> publisherOnly.publisher("all", Job.class)
                .publishAll(List.of(new Job(1), new Job(2)), PublishOptions.NONE.id(7)))
                .isInstanceOf(InboxException.class).hasMessageContaining("one id for 2 jobs");
        publisherOnly.publisher("all", Job.class).publishAll(List.of());
        assertThat(db.count(TABLE)).isZero();
    }
}
