package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.BatchHandler;
import dev.inbox.ClaimForm;
import dev.inbox.Handler;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import dev.inbox.testkit.InboxTestKit;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No subscription option is accepted and then ignored: for every option of
 * {@link SubscriptionOption#all()} a check runs a subscription with it set, on PostgreSQL, and sees
 * what it changes. A new option without a check fails {@link #everyOptionHasACheck()}. The table's
 * own settings are proven elsewhere: isolation in {@code TransactionalTest} and
 * {@code ThreadBoundTransactionsTest}, the SQLite mode in {@code ThreadBoundTransactionsTest}, the
 * clock in {@code DatabaseClockTest}.
 */
class OptionWalkTest {
    private static final TestDatabase DB = TestDatabase.POSTGRES;
    private static final TestTable TABLE = TestTable.of("walk_jobs", ClaimForm.LEASE, TestTable.Feature.ATTEMPT,
            TestTable.Feature.RETRY_AFTER);
    private static final String DEAD = "walk_dead";

    /** One option's check. */
    @FunctionalInterface
    private interface Check {
        void run(OptionWalkTest test) throws Exception;
    }

    private static final Map<SubscriptionOption<?>, Check> CHECKS = Map.ofEntries(
            Map.entry(SubscriptionOption.LEASE, OptionWalkTest::lease),
            Map.entry(SubscriptionOption.POLL_INTERVAL, OptionWalkTest::pollInterval),
            Map.entry(SubscriptionOption.WORKERS, OptionWalkTest::workers),
            Map.entry(SubscriptionOption.BATCH_SIZE, OptionWalkTest::batchSize),
            Map.entry(SubscriptionOption.PREFETCH, OptionWalkTest::prefetch),
            Map.entry(SubscriptionOption.MAX_ATTEMPTS, OptionWalkTest::maxAttemptsAndDeadLetter),
            Map.entry(SubscriptionOption.DEAD_LETTER, OptionWalkTest::maxAttemptsAndDeadLetter),
            Map.entry(SubscriptionOption.RETRY_BACKOFF, OptionWalkTest::retryBackoff),
            Map.entry(SubscriptionOption.RETRY_BACKOFF_MAX, OptionWalkTest::retryBackoffMax),
            Map.entry(SubscriptionOption.HANDLER_TIMEOUT, OptionWalkTest::handlerTimeout),
            Map.entry(SubscriptionOption.TRANSACTIONAL, OptionWalkTest::transactional),
            Map.entry(SubscriptionOption.LISTEN_NOTIFY, OptionWalkTest::listenNotify),
            Map.entry(SubscriptionOption.ENABLED, OptionWalkTest::enabled));

    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();
    private final List<String> seen = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        brokers.forEach(InboxBroker::shutdown);
    }

    @Test
    void everyOptionHasACheck() {
        assertThat(CHECKS.keySet()).containsExactlyInAnyOrderElementsOf(SubscriptionOption.all());
    }

    static Stream<SubscriptionOption<?>> options() {
        return SubscriptionOption.all().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("options")
    void theOptionChangesWhatTheSubscriptionDoes(SubscriptionOption<?> option) throws Exception {
        TABLE.create(DB);
        TABLE.createDeadLetter(DB, DEAD);
        CHECKS.get(option).run(this);
    }

    // ---- helpers ----

    /** A broker polling every 50 ms with one subscription to the walk table, {@code options} applied. */
    private InboxBroker subscribe(Handler<Job> handler, UnaryOperator<Subscription<Job>> options) {
        InboxBroker broker = InboxBroker.fromDataSource(DB.dataSource()).pollInterval(Duration.ofMillis(50))
                .subscribe(options.apply(Subscription.of("walk", TABLE.spec(), Job.class, handler))).connect();
        brokers.add(broker);
        return broker;
    }

    /** Inserts jobs as another program would: no local wake. */
    private static void insert(int... jobs) {
        for (int job : jobs) {
            DB.execute("INSERT INTO walk_jobs (payload) VALUES (convert_to('{\"n\":" + job + "}', 'UTF8'))");
        }
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) {
        InboxTestKit.await(condition, Duration.ofSeconds(20), () -> what);
    }

    private void shutdownAll() {
        brokers.forEach(InboxBroker::shutdown);
        brokers.clear();
    }

    // ---- the checks ----

    /** The lease written at the claim is the option's, not the default 30 s. */
    private static void lease(OptionWalkTest t) throws Exception {
        for (int seconds : new int[] {3, 60}) {
            CountDownLatch claimed = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            t.subscribe((job, d) -> {
                claimed.countDown();
                finish.await(10, TimeUnit.SECONDS);
                return Outcome.ack();
            }, s -> s.with(SubscriptionOption.LEASE, Duration.ofSeconds(seconds)));
            insert(1);
            assertThat(claimed.await(10, TimeUnit.SECONDS)).isTrue();
            long leftMillis = ((Number) InboxTestKit.on(DB.dataSource()).query("SELECT EXTRACT(EPOCH FROM"
                    + " locked_until - now()) * 1000 AS ms FROM walk_jobs").get(0).get("ms")).longValue();
            assertThat(leftMillis).as("lease of " + seconds + " s").isBetween(seconds * 1000L - 2_000,
                    seconds * 1000L + 1_000);
            finish.countDown();
            await(() -> DB.count("walk_jobs") == 0, "acked");
            t.shutdownAll();
        }
    }

    /** A row no publish of this process announces is found at the next poll. */
    private static void pollInterval(OptionWalkTest t) throws Exception {
        t.subscribe((job, d) -> {
            t.seen.add("handled");
            return Outcome.ack();
        }, s -> s.with(SubscriptionOption.POLL_INTERVAL, Duration.ofSeconds(4)));
        Thread.sleep(300); // the first poll has run
        long start = System.nanoTime();
        insert(1);
        Thread.sleep(1_500);
        assertThat(t.seen).as("not before the 4 s poll").isEmpty();
        await(() -> !t.seen.isEmpty(), "handled at the next poll");
        assertThat(millisSince(start)).isLessThan(6_000);
    }

    /** Three workers run three handlers at once. */
    private static void workers(OptionWalkTest t) throws Exception {
        CountDownLatch together = new CountDownLatch(3);
        t.subscribe((job, d) -> {
            together.countDown();
            return together.await(10, TimeUnit.SECONDS) ? Outcome.ack() : Outcome.retry();
        }, s -> s.with(SubscriptionOption.WORKERS, 3));
        insert(1, 2, 3);
        assertThat(together.await(10, TimeUnit.SECONDS)).as("three handlers at once").isTrue();
    }

    /** A batch handler gets at most a batch of rows. */
    private static void batchSize(OptionWalkTest t) throws Exception {
        insert(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        InboxBroker broker = InboxBroker.fromDataSource(DB.dataSource()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.ofBatch("walk", TABLE.spec(), Job.class, (BatchHandler<Job>) (payloads, ds) -> {
                    sizes.add(payloads.size());
                    return BatchHandler.all(payloads, Outcome.ack());
                }).with(SubscriptionOption.BATCH_SIZE, 4))
                .connect();
        t.brokers.add(broker);
        await(() -> DB.count("walk_jobs") == 0, "drained");
        assertThat(sizes).allMatch(size -> size <= 4).contains(4);
    }

    /** With no prefetch, one worker holds one row; with prefetch, rows wait claimed beside it. */
    private static void prefetch(OptionWalkTest t) throws Exception {
        for (int prefetch : new int[] {0, 5}) {
            insert(1, 2, 3, 4, 5, 6, 7, 8);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            t.subscribe((job, d) -> {
                started.countDown();
                finish.await(10, TimeUnit.SECONDS);
                return Outcome.ack();
            }, s -> s.with(SubscriptionOption.PREFETCH, prefetch).batchSize(8));
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(300);
            long leased = DB.count("walk_jobs WHERE locked_until > now()");
            assertThat(leased).as("rows claimed with prefetch " + prefetch).isEqualTo(1 + prefetch);
            finish.countDown();
            await(() -> DB.count("walk_jobs") == 0, "drained");
            t.shutdownAll();
        }
    }

    /** After the last allowed attempt the row moves to the dead-letter table. */
    private static void maxAttemptsAndDeadLetter(OptionWalkTest t) throws Exception {
        t.subscribe((job, d) -> {
            t.seen.add("attempt " + d.attempt());
            throw new IllegalStateException("fails for ever");
        }, s -> s.with(SubscriptionOption.MAX_ATTEMPTS, 2).with(SubscriptionOption.DEAD_LETTER, DEAD)
                .retryBackoff(Duration.ofMillis(100)));
        insert(1);
        await(() -> DB.count(DEAD) == 1, "dead-lettered: " + t.seen);
        assertThat(t.seen).containsExactly("attempt 1", "attempt 2");
    }

    /** The first retry waits the back-off, not the default second. */
    private static void retryBackoff(OptionWalkTest t) throws Exception {
        long wait = t.firstRetryWait(s -> s.with(SubscriptionOption.RETRY_BACKOFF, Duration.ofSeconds(3)));
        // Up to a quarter is taken off at random; the poll adds up to 50 ms.
        assertThat(wait).isBetween(2_200L, 4_500L);
    }

    /** A handler still running past the timeout is interrupted, and its row retried. */
    private static void handlerTimeout(OptionWalkTest t) throws Exception {
        t.subscribe((job, d) -> {
            if (d.attempt() == 1) {
                try {
                    Thread.sleep(30_000);
                } catch (InterruptedException e) {
                    t.seen.add("interrupted");
                    throw e;
                }
            }
            t.seen.add("attempt " + d.attempt());
            return Outcome.ack();
        }, s -> s.retryBackoff(Duration.ZERO).with(SubscriptionOption.HANDLER_TIMEOUT, Duration.ofMillis(200)));
        insert(1);
        await(() -> DB.count("walk_jobs") == 0, "retried after the timeout and acked");
        assertThat(t.seen).containsExactly("interrupted", "attempt 2");
    }

    /**
     * The doubled back-off never waits longer than its maximum: the second retry waits at most 1 s,
     * where doubled it would wait at least 1.5 s (2 s, less up to a quarter).
     */
    private static void retryBackoffMax(OptionWalkTest t) throws Exception {
        List<Long> at = new CopyOnWriteArrayList<>();
        long start = System.nanoTime();
        t.subscribe((job, d) -> {
            at.add(millisSince(start));
            if (d.attempt() < 3) {
                throw new IllegalStateException("attempt " + d.attempt() + " fails");
            }
            return Outcome.ack();
        }, s -> s.retryBackoff(Duration.ofSeconds(1)).with(SubscriptionOption.RETRY_BACKOFF_MAX, Duration.ofSeconds(1)));
        insert(1);
        await(() -> at.size() == 3, "retried twice");
        assertThat(at.get(2) - at.get(1)).isBetween(700L, 1_400L);
    }

    /** Milliseconds between a first attempt that throws and the second. */
    private long firstRetryWait(UnaryOperator<Subscription<Job>> options) {
        List<Long> at = new CopyOnWriteArrayList<>();
        long start = System.nanoTime();
        subscribe((job, d) -> {
            at.add(millisSince(start));
            if (d.attempt() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
            return Outcome.ack();
        }, options);
        insert(1);
        await(() -> at.size() == 2, "retried");
        return at.get(1) - at.get(0);
    }

    /** A transactional delivery's writes roll back with its retry; without it, no connection is lent. */
    private static void transactional(OptionWalkTest t) throws Exception {
        DB.execute("DROP TABLE IF EXISTS walk_effects", "CREATE TABLE walk_effects (attempt INTEGER NOT NULL)");
        t.subscribe((job, d) -> {
            try (PreparedStatement ps = d.connection().prepareStatement("INSERT INTO walk_effects VALUES (?)")) {
                ps.setInt(1, d.attempt());
                ps.executeUpdate();
            }
            return d.attempt() == 1 ? Outcome.retry(Duration.ofMillis(100)) : Outcome.ack();
        }, s -> s.with(SubscriptionOption.TRANSACTIONAL, true));
        insert(1);
        await(() -> DB.count("walk_jobs") == 0, "acked");
        assertThat(DB.count("walk_effects")).as("only the acked attempt's write").isEqualTo(1);
        t.shutdownAll();

        t.subscribe((job, d) -> {
            try {
                d.connection();
                t.seen.add("lent");
            } catch (IllegalStateException e) {
                t.seen.add("refused");
            }
            return Outcome.ack();
        }, s -> s.with(SubscriptionOption.TRANSACTIONAL, false));
        insert(2);
        await(() -> DB.count("walk_jobs") == 0, "acked");
        assertThat(t.seen).containsExactly("refused");
    }

    /** A publish from another process wakes a listening subscription long before its poll. */
    private static void listenNotify(OptionWalkTest t) throws Exception {
        t.subscribe((job, d) -> {
            t.seen.add("handled");
            return Outcome.ack();
        }, s -> s.pollInterval(Duration.ofSeconds(30)).with(SubscriptionOption.LISTEN_NOTIFY, true));
        // Another process's publisher notifies where its broker's listen-notify is on.
        InboxBroker elsewhere = InboxBroker.fromDataSource(DB.dataSource()).listenNotify(true)
                .route("walk", TABLE.spec()).connect();
        t.brokers.add(elsewhere);
        Thread.sleep(300);
        long start = System.nanoTime();
        elsewhere.publisher("walk", Job.class).publish(new Job(1));
        await(() -> !t.seen.isEmpty(), "woken by NOTIFY");
        assertThat(millisSince(start)).isLessThan(5_000);

        // Where the database has no notifications, asking a subscription for them is refused.
        TestDatabase maria = TestDatabase.MARIADB;
        TABLE.create(maria);
        assertThatThrownBy(() -> InboxBroker.fromDataSource(maria.dataSource())
                .subscribe(Subscription.of("walk", TABLE.spec(), Job.class, (job, d) -> Outcome.ack())
                        .with(SubscriptionOption.LISTEN_NOTIFY, true)).connect())
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                    assertThat(e.getMessage()).contains("queue walk sets listen-notify", "no notifications");
                });
        // The broker-wide setting, shared by configurations of several databases, only warns there.
        InboxBroker broadly = InboxBroker.fromDataSource(maria.dataSource()).listenNotify(true)
                .subscribe(Subscription.of("walk", TABLE.spec(), Job.class, (job, d) -> Outcome.ack())).connect();
        t.brokers.add(broadly);
    }

    /** A disabled subscription handles nothing, and its queue still takes publishes. */
    private static void enabled(OptionWalkTest t) throws Exception {
        InboxBroker broker = t.subscribe((job, d) -> {
            t.seen.add("handled");
            return Outcome.ack();
        }, s -> s.with(SubscriptionOption.ENABLED, false));
        broker.publisher("walk", Job.class).publish(new Job(1));
        Thread.sleep(1_000);
        assertThat(t.seen).isEmpty();
        assertThat(DB.count("walk_jobs")).as("published, and left for a server that handles it").isEqualTo(1);
    }
}
