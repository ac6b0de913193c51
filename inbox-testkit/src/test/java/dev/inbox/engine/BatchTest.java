package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.BatchHandler;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.testkit.InboxTestKit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Batch handlers: the payloads of one claim together, one outcome per payload. */
class BatchTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void eachPayloadOfABatchSettlesWithItsOwnOutcome(FormCase c) {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("batch_jobs", c.form(), TestTable.Feature.ATTEMPT);
        table.create(db);
        int jobs = 100;
        db.execute(insertJobs(db, jobs));
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        Map<Integer, List<Integer>> attempts = new ConcurrentHashMap<>();
        BatchHandler<Job> handler = (payloads, deliveries) -> {
            sizes.add(payloads.size());
            List<Outcome> outcomes = new ArrayList<>();
            for (int i = 0; i < payloads.size(); i++) {
                int n = payloads.get(i).n();
                int attempt = deliveries.get(i).attempt();
                attempts.computeIfAbsent(n, k -> new CopyOnWriteArrayList<>()).add(attempt);
                outcomes.add(n % 2 == 1 && attempt == 1 ? Outcome.retry() : Outcome.ack());
            }
            return outcomes;
        };
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.ofBatch("batch", table.spec(), Job.class, handler).batchSize(10).workers(2))
                .connect();
        try {
            InboxTestKit.await(() -> db.count(table.name()) == 0, Duration.ofSeconds(30), () -> "drained: " + sizes);
        } finally {
            broker.shutdown();
        }
        assertThat(sizes).allMatch(size -> size >= 1 && size <= 10).anyMatch(size -> size > 1);
        assertThat(attempts).hasSize(jobs);
        attempts.forEach((n, seen) -> assertThat(seen).as("job %d", n)
                .containsExactlyElementsOf(n % 2 == 1 ? List.of(1, 2) : List.of(1)));
    }

    @Test
    void aBatchHandlerThatMiscountsItsOutcomesRetriesTheWholeBatch() {
        List<Integer> calls = new CopyOnWriteArrayList<>();
        try (InboxTestKit kit = InboxTestKit.sqlite()) {
            kit.execute("CREATE TABLE batch_jobs (id INTEGER PRIMARY KEY, attempt INTEGER NOT NULL DEFAULT 1,"
                    + " locked_until TEXT, payload BLOB NOT NULL)",
                    "INSERT INTO batch_jobs (payload) VALUES ('{\"n\":1}'), ('{\"n\":2}'), ('{\"n\":3}')");
            kit.subscribe(Subscription.ofBatch("batch", Job.leaseTable("batch_jobs"), Job.class, (payloads, d) -> {
                calls.add(d.get(0).attempt());
                return d.get(0).attempt() == 1 ? List.of(Outcome.ack()) : BatchHandler.all(payloads, Outcome.ack());
            }).batchSize(10)).start();
            kit.awaitCount("batch_jobs", 0);
        }
        assertThat(calls).containsExactly(1, 2);
    }

    @Test
    void aTransactionalBatchHandlerIsRefusedWhenSubscribed() {
        try (InboxTestKit kit = InboxTestKit.sqlite()) {
            assertThatThrownBy(() -> kit.subscribe(Subscription.ofBatch("batch", Job.leaseTable("batch_jobs"),
                    Job.class, (payloads, d) -> BatchHandler.all(payloads, Outcome.ack())).transactional(true)))
                    .isInstanceOfSatisfying(InboxException.class, e -> {
                        assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                        assertThat(e.getMessage()).contains("queue batch", "batch handler", "transactional");
                    });
        }
    }

    private static String insertJobs(TestDatabase db, int jobs) {
        StringBuilder sql = new StringBuilder("INSERT INTO batch_jobs (payload) VALUES ");
        for (int i = 0; i < jobs; i++) {
            sql.append(i == 0 ? "" : ", ").append(db == TestDatabase.POSTGRES
                    ? "(convert_to('{\"n\":" + i + "}', 'UTF8'))" : "('{\"n\":" + i + "}')");
        }
        return sql.toString();
    }

}
