package dev.inbox.engine;

import static dev.inbox.engine.TestTable.Feature.ATTEMPT;
import static dev.inbox.engine.TestTable.Feature.GROUP;
import static dev.inbox.engine.TestTable.Feature.HEADERS;
import static dev.inbox.engine.TestTable.Feature.PRIORITY;
import static dev.inbox.engine.TestTable.Feature.PROCESSED_AT;
import static dev.inbox.engine.TestTable.Feature.RETRY_AFTER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Handler;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.Subscription;
import dev.inbox.spi.BrokerListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** retry_after, processed_at, headers, groups and priority on every database, in the lease form. */
class OptionalColumnsTest {
    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        brokers.forEach(b -> b.shutdown(Duration.ofSeconds(5)));
    }

    private InboxBroker broker(TestDatabase db, TestTable table, int workers, Handler<Job> handler) {
        return broker(db, table, workers, handler, new BrokerListener() {});
    }

    private InboxBroker broker(TestDatabase db, TestTable table, int workers, Handler<Job> handler,
            BrokerListener listener) {
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50)).listener(listener)
                .subscribe(Subscription.of("optional", table.spec(), Job.class, handler).workers(workers).batchSize(4))
                .connect();
        brokers.add(broker);
        return broker;
    }

    /** Publishes job {@code i} at {@code priorities[i]}, from a broker that only publishes. */
    private void publishByPriority(TestDatabase db, TestTable table, int... priorities) {
        InboxBroker publisherOnly = InboxBroker.fromUrl(db.url()).route("optional", table.spec()).connect();
        brokers.add(publisherOnly);
        for (int i = 0; i < priorities.length; i++) {
            publisherOnly.publisher("optional", Job.class).publish(new Job(i), PublishOptions.NONE.priority(priorities[i]));
        }
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) {
        Eventually.await(condition, Duration.ofSeconds(30), () -> what);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aPublishDelayAndARetryDelayLiveInRetryAfter(FormCase c) {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("ra_jobs", c.form(), ATTEMPT, RETRY_AFTER);
        table.create(db);
        Map<Integer, List<Long>> seen = new ConcurrentHashMap<>();
        long start = System.nanoTime();
        InboxBroker broker = broker(db, table, 2, (job, d) -> {
            seen.computeIfAbsent(job.n(), n -> new CopyOnWriteArrayList<>()).add((System.nanoTime() - start) / 1_000_000);
            return job.n() == 2 && d.attempt() == 1 ? Outcome.retry(Duration.ofSeconds(2)) : Outcome.ack();
        });
        broker.publisher("optional", Job.class).publish(new Job(1), PublishOptions.NONE.delay(Duration.ofSeconds(2)));
        broker.publisher("optional", Job.class).publish(new Job(2));
        await(() -> db.count(table.name()) == 0, "both rows acked");
        assertThat(seen.get(1)).hasSize(1).allMatch(ms -> ms >= 1_950);
        assertThat(seen.get(2)).hasSize(2);
        assertThat(seen.get(2).get(1) - seen.get(2).get(0)).isGreaterThanOrEqualTo(1_950);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void ackKeepsARowWithProcessedAtAndNeverClaimsItAgain(FormCase c) throws Exception {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("pa_jobs", c.form(), ATTEMPT, PROCESSED_AT);
        table.create(db);
        List<Integer> seen = new CopyOnWriteArrayList<>();
        InboxBroker broker = broker(db, table, 2, (job, d) -> {
            seen.add(job.n());
            return Outcome.ack();
        });
        // Several rows, so a claim's acks are written together (on PostgreSQL, as one statement).
        broker.publisher("optional", Job.class).publishAll(List.of(new Job(1), new Job(2), new Job(3), new Job(4),
                new Job(5), new Job(6)));
        await(() -> db.count(table.name() + " WHERE processed_at IS NOT NULL") == 6, "the rows are stamped");
        Thread.sleep(500);
        assertThat(seen).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6);
        assertThat(db.count(table.name())).isEqualTo(6);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void headersSetOnPublishAreReadFromTheDelivery(FormCase c) {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("hd_jobs", c.form(), HEADERS);
        table.create(db);
        List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
        InboxBroker broker = broker(db, table, 1, (job, d) -> {
            seen.add(d.headers());
            return Outcome.ack();
        });
        broker.publisher("optional", Job.class).publish(new Job(1),
                PublishOptions.NONE.header("trace", "abc-123").header("tenant", "acme"));
        broker.publisher("optional", Job.class).publish(new Job(2));
        await(() -> seen.size() == 2, "both delivered");
        assertThat(seen).containsExactly(Map.of("trace", "abc-123", "tenant", "acme"), Map.of());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void higherPriorityComesFirstThenId(FormCase c) {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("pr_jobs", c.form(), ATTEMPT, PRIORITY);
        table.create(db);
        int[] priorities = {0, 5, 0, 10, 5, 0};
        publishByPriority(db, table, priorities);
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<String> claims = new CopyOnWriteArrayList<>(); // should the order break, which claim took what
        broker(db, table, 1, (job, d) -> {
            order.add(job.n());
            return Outcome.ack();
        }, new BrokerListener() {
            @Override
            public void claimed(String queue, int rows, Duration took) {
                if (rows > 0) {
                    claims.add(rows + " rows after " + order + " on " + Thread.currentThread().getName());
                }
            }
        });
        await(() -> order.size() == priorities.length, "all delivered");
        assertThat(order).as("%s, claims: %s", c, claims).containsExactly(3, 1, 4, 0, 2, 5);
    }

    /**
     * A claim in priority order locks the rows it takes and no others: on MySQL and MariaDB one whose
     * order the server sorts locks every ready row until its transaction ends, and there a row lock
     * claim held open by a long handler would leave the other workers nothing.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aPriorityClaimLeavesTheRowsItDidNotTakeToTheNextClaim(FormCase c) throws InterruptedException {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("prl_jobs", c.form(), ATTEMPT, PRIORITY);
        table.create(db);
        int[] priorities = {0, 5, 0, 10, 5, 0};
        publishByPriority(db, table, priorities);
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        List<Integer> others = new CopyOnWriteArrayList<>();
        broker(db, table, 2, (job, d) -> {
            if (job.n() == 3) {
                held.await();
            } else {
                others.add(job.n());
            }
            return Outcome.ack();
        });
        try {
            await(() -> others.size() == priorities.length - 1, "every other job delivered while job 3, of the"
                    + " first claim, is in work (delivered: " + others + ")");
        } finally {
            held.countDown();
        }
        await(() -> db.count(table.name()) == 0, "all acked");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aGroupHasOneRowInWorkAtATimeInIdOrderAcrossWorkersAndBrokers(FormCase c) {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("fifo_jobs", c.form(), ATTEMPT, GROUP);
        table.create(db);
        int groups = 8;
        int perGroup = 40;
        InboxBroker publisherOnly = InboxBroker.fromUrl(db.url()).route("optional", table.spec()).connect();
        brokers.add(publisherOnly);
        for (int i = 0; i < groups * perGroup; i++) {
            publisherOnly.publisher("optional", Job.class).publish(new Job(i), PublishOptions.NONE.group("g" + (i % groups)));
        }
        Spans spans = new Spans();
        Map<Integer, List<Integer>> delivered = new ConcurrentHashMap<>();
        Map<Integer, Integer> retried = new ConcurrentHashMap<>();
        Handler<Job> handler = (job, d) -> {
            long start = System.nanoTime();
            int group = job.n() % groups;
            // Record the group as if it were the job: a group's deliveries must never overlap.
            try {
                if (job.n() % 7 == 0 && retried.putIfAbsent(job.n(), 1) == null) {
                    return Outcome.retry(); // a retried head keeps its group waiting, in order
                }
                delivered.computeIfAbsent(group, g -> new CopyOnWriteArrayList<>()).add(job.n());
                Thread.sleep(job.n() % 3);
                return Outcome.ack();
            } finally {
                spans.record(group, start, "any");
            }
        };
        broker(db, table, 4, handler);
        broker(db, table, 4, handler);
        await(() -> db.count(table.name()) == 0, "every group drained");
        spans.assertNoOverlap();
        for (int g = 0; g < groups; g++) {
            List<Integer> expected = new ArrayList<>();
            for (int i = g; i < groups * perGroup; i += groups) {
                expected.add(i);
            }
            assertThat(delivered.get(g)).as("group g%d in id order", g).containsExactlyElementsOf(expected);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void anOptionWithoutItsColumnIsRefusedOnPublish(FormCase c) {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("plain_jobs", c.form(), ATTEMPT);
        table.create(db);
        InboxBroker broker = broker(db, table, 1, (job, d) -> Outcome.ack());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> broker.publisher("optional", Job.class)
                .publish(new Job(1), PublishOptions.NONE.group("g1")))
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                    assertThat(e.getMessage()).contains("group column", "plain_jobs");
                });
    }
}
