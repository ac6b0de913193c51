package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ClaimForm;
import dev.inbox.InboxException.Kind;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.spi.BrokerListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Poison jobs never stop a queue: a handler that throws an Error, a row that fails for ever, an
 * attempt counter at its column's largest value; and what publish accepts, a subscriber can read.
 */
class PoisonJobsTest {
    private static final String TABLE = "poison_jobs";
    /** Job numbers at or above this fail in the tests that poison the queue. */
    private static final int POISON = 1_000_000;

    private InboxBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.shutdown(java.time.Duration.ofSeconds(5));
        }
    }

    /** A table of the form with an attempt column and a due time (retry_after), which the back-off needs. */
    private static TestTable table(FormCase c) {
        TestTable table = TestTable.of(TABLE, c.form(), TestTable.Feature.ATTEMPT, TestTable.Feature.RETRY_AFTER);
        table.create(c.db());
        return table;
    }

    private InboxBroker open(FormCase c, TestTable table, Subscription<Job> subscription) {
        broker = InboxBroker.fromUrl(c.db().url()).pollInterval(Duration.ofMillis(50)).subscribe(subscription)
                .connect();
        return broker;
    }

    private static int recurse(int depth) {
        return recurse(depth + 1) + 1;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aHandlerThrowingStackOverflowErrorOnOneWorkerLeavesTheNextJobsHandled(FormCase c) {
        aHandlerThrowingAnErrorLeavesTheNextJobsHandled(c, () -> recurse(0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aHandlerThrowingOutOfMemoryErrorOnOneWorkerLeavesTheNextJobsHandled(FormCase c) {
        aHandlerThrowingAnErrorLeavesTheNextJobsHandled(c, () -> {
            throw new OutOfMemoryError("Java heap space (thrown by the test's handler)");
        });
    }

    private void aHandlerThrowingAnErrorLeavesTheNextJobsHandled(FormCase c, Runnable failure) {
        TestTable table = table(c);
        AtomicInteger firstAttempts = new AtomicInteger();
        List<Integer> handled = new CopyOnWriteArrayList<>();
        List<String> logged = LogCapture.during(() -> {
            open(c, table, Subscription.of("poison", table.spec(), Job.class, (job, d) -> {
                if (job.n() == 0 && firstAttempts.getAndIncrement() == 0) {
                    failure.run();
                }
                handled.add(job.n());
                return Outcome.ack();
            }).retryBackoff(Duration.ofMillis(100)));
            publish(0, 101);
            Eventually.await(() -> handled.size() == 101, Duration.ofSeconds(60),
                    () -> "every job handled: " + handled.size());
        });
        assertThat(handled).containsExactlyInAnyOrderElementsOf(IntStream.range(0, 101).boxed().toList());
        assertThat(logged).anyMatch(line -> line.startsWith("WARNING queue poison: the handler failed on row")
                && line.contains("(attempt 1) with java.lang.") && line.contains("Error"));
        assertThat(logged).noneMatch(line -> line.contains("died"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aRowThatAlwaysFailsIsRetriedOnTheBackOffScheduleWhileGoodJobsDrain(FormCase c) throws Exception {
        TestTable table = table(c);
        List<Long> poisonAttempts = new CopyOnWriteArrayList<>();
        AtomicInteger good = new AtomicInteger();
        List<String> logged = LogCapture.during(() -> {
            open(c, table, Subscription.of("poison", table.spec(), Job.class, (job, d) -> {
                if (job.n() >= POISON) {
                    poisonAttempts.add(System.nanoTime());
                    throw new IllegalStateException("poison job " + job.n());
                }
                good.incrementAndGet();
                return Outcome.ack();
            }).retryBackoff(Duration.ofMillis(200)).retryBackoffMax(Duration.ofSeconds(1)).batchSize(1));
            publish(POISON, POISON + 1);
            publish(0, 1_000);
            Eventually.await(() -> good.get() == 1_000, Duration.ofSeconds(60),
                    () -> "the good jobs drained: " + good.get());
            try {
                Thread.sleep(3_000);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // 200 ms doubling to 1 s, each up to a quarter shorter: over the few seconds of the run, a
        // handful of attempts, never closer together than the schedule allows.
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < poisonAttempts.size(); i++) {
            gaps.add((poisonAttempts.get(i) - poisonAttempts.get(i - 1)) / 1_000_000);
        }
        assertThat(poisonAttempts.size()).as("attempts of the poison row, gaps " + gaps).isBetween(3, 40);
        for (int i = 0; i < gaps.size(); i++) {
            long planned = Math.min(200L << i, 1_000L);
            assertThat(gaps.get(i)).as("gap %d of %s", i, gaps).isGreaterThanOrEqualTo(planned * 3 / 4 - 20);
        }
        // One line per failed attempt, and the stack trace only with the first.
        List<String> failures = logged.stream().filter(line -> line.contains("the handler failed on row")).toList();
        assertThat(failures).hasSize(poisonAttempts.size());
        assertThat(failures.stream().filter(line -> line.contains("IllegalStateException: poison job ")
                && line.endsWith("(the stack trace follows once for each kind of failure) "
                        + "java.lang.IllegalStateException: poison job " + POISON))).hasSize(1);
        assertThat(failures).allMatch(line -> line.contains("is due again in "));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void anAttemptColumnAtItsLargestValueDoesNotStopTheQueue(FormCase c) {
        TestTable table = table(c);
        c.db().execute("INSERT INTO " + TABLE + " (attempt, payload) VALUES (32767, " + payload(c.db(), 0) + ")");
        List<Integer> handled = new CopyOnWriteArrayList<>();
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        open(c, table, Subscription.of("poison", table.spec(), Job.class, (job, d) -> {
            handled.add(job.n());
            if (job.n() == 0) {
                attempts.add(d.attempt());
                return attempts.size() < 3 ? Outcome.retry(Duration.ofMillis(1)) : Outcome.ack();
            }
            return Outcome.ack();
        }));
        publish(1, 51);
        Eventually.await(() -> c.db().count(TABLE) == 0, Duration.ofSeconds(30),
                () -> "every row handled: " + handled.size());
        assertThat(handled).hasSize(53).containsAll(IntStream.range(0, 51).boxed().toList());
        assertThat(attempts).hasSize(3).allMatch(a -> a >= 32_766);
    }

    private static String payload(TestDatabase db, int n) {
        String json = "'{\"n\":" + n + "}'";
        return db == TestDatabase.POSTGRES ? "CAST(" + json + " AS BYTEA)" : json;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aPayloadPastTheLimitsFailsAtPublishNamingQueueSizeAndLimit(TestDatabase db) {
        TestTable table = TestTable.of(TABLE, ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        broker = InboxBroker.fromUrl(db.url()).route("big", table.spec()).connect();
        String thirtyMegabytes = "x".repeat(30 * 1024 * 1024);
        assertThatThrownBy(() -> broker.publisher("big", Note.class).publish(new Note(thirtyMegabytes)))
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.DECLARATION);
                    assertThat(e.getMessage()).contains("queue big", "31457291 bytes", "more than the",
                            db.mysqlFamily() ? "65535 bytes the payload column " + TABLE + ".payload holds"
                                    : "20000000 bytes the JSON mapper's StreamReadConstraints let a subscriber read");
                });
        assertThat(db.count(TABLE)).isZero();
    }

    /** A payload of one text. */
    record Note(String text) {}

    /** Jackson can write it (its getter) but never build it: no constructor it can use. */
    public static final class Unbuildable {
        private final String text;

        public Unbuildable(String text, int unused) {
            this.text = text;
        }

        public String getText() {
            return text;
        }
    }

    /** An interface: written from its getters, never read without type information. */
    public interface Shape {
        String getName();
    }

    @Test
    void anUndecodableTypeFailsWhenThePublisherIsMadeOrTheSubscriptionOpens() {
        TestTable table = TestTable.of(TABLE, ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(TestDatabase.SQLITE);
        broker = InboxBroker.fromUrl(TestDatabase.SQLITE.url()).route("types", table.spec());
        assertThatThrownBy(() -> broker.publisher("types", Unbuildable.class))
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.DECLARATION);
                    assertThat(e.getMessage()).contains("queue types", Unbuildable.class.getName(),
                            "never decoded", "constructor");
                });
        assertThatThrownBy(() -> broker.publisher("types", Shape.class))
                .isInstanceOfSatisfying(InboxException.class, e -> assertThat(e.getMessage()).contains("abstract"));
        InboxBroker subscriber = InboxBroker.fromUrl(TestDatabase.SQLITE.url())
                .subscribe(Subscription.of("types", table.spec(), Unbuildable.class, (x, d) -> Outcome.ack()));
        assertThatThrownBy(subscriber::connect).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(Kind.DECLARATION);
            assertThat(e.getMessage()).contains("queue types", "never decoded");
        });
    }

    @Test
    void aNullPayloadIsRefused() {
        TestTable table = TestTable.of(TABLE, ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(TestDatabase.SQLITE);
        broker = InboxBroker.fromUrl(TestDatabase.SQLITE.url()).route("nulls", table.spec()).connect();
        assertThatThrownBy(() -> broker.publisher("nulls", Note.class).publish(null))
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.DECLARATION);
                    assertThat(e.getMessage()).contains("queue nulls", "null payload");
                });
        List<Note> withNull = new ArrayList<>(List.of(new Note("a")));
        withNull.add(null);
        assertThatThrownBy(() -> broker.publisher("nulls", Note.class).publishAll(withNull))
                .isInstanceOf(InboxException.class).hasMessageContaining("null payload");
        assertThat(TestDatabase.SQLITE.count(TABLE)).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void theKeeperRetriesAFailedExtensionWellWithinTheLease(TestDatabase db) {
        TestTable table = TestTable.of(TABLE, ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        OutageDataSource keeperOutage = new OutageDataSource(db.dataSource(), "-keeper").refuse(1);
        List<String> settled = new CopyOnWriteArrayList<>();
        broker = InboxBroker.fromDataSource(keeperOutage).lease(Duration.ofSeconds(4))
                .pollInterval(Duration.ofMillis(50))
                .listener(new BrokerListener() {
                    @Override
                    public void settled(String queue, Object id, int attempt, Outcome outcome) {
                        settled.add(outcome.toString());
                    }

                    @Override
                    public void settlementFailed(String queue, Object id, Outcome outcome, InboxException error) {
                        settled.add("failed " + error.kind());
                    }
                })
                .subscribe(Subscription.of("kept", table.spec(), Job.class, (job, d) -> {
                    Thread.sleep(3_000); // past the first half lease: the keeper must extend once
                    return Outcome.ack();
                }))
                .connect();
        broker.publisher("kept", Job.class).publish(new Job(1));
        Eventually.await(() -> settled.size() == 1, Duration.ofSeconds(20), () -> "settled: " + settled);
        assertThat(settled).containsExactly("ack");
        List<Long> requests = keeperOutage.requests();
        assertThat(requests).as("the keeper's requests for a connection").hasSizeGreaterThanOrEqualTo(2);
        long retryMillis = (requests.get(1) - requests.get(0)) / 1_000_000;
        assertThat(retryMillis).as("the retry after the first extension failed, against a half lease of 2 s")
                .isLessThan(1_000);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aFailureOutsideTheHandlerGivesTheRowBackAndTheWorkerGoesOn(FormCase c) {
        TestTable table = table(c);
        AtomicInteger contexts = new AtomicInteger();
        List<Integer> handled = new CopyOnWriteArrayList<>();
        List<String> logged = LogCapture.during(() -> {
            // The application's context fails once, as a server's context service might: outside any handler.
            broker = InboxBroker.fromUrl(c.db().url()).pollInterval(Duration.ofMillis(50))
                    .handlerContext(task -> {
                        if (contexts.getAndIncrement() == 0) {
                            throw new NoClassDefFoundError("the application's context is gone (thrown by the test)");
                        }
                        task.run();
                    })
                    .subscribe(Subscription.of("poison", table.spec(), Job.class, (job, d) -> {
                        handled.add(job.n());
                        return Outcome.ack();
                    }))
                    .connect();
            publish(0, 20);
            Eventually.await(() -> handled.size() == 20, Duration.ofSeconds(30), () -> "handled: " + handled);
        });
        assertThat(handled).containsExactlyInAnyOrderElementsOf(IntStream.range(0, 20).boxed().toList());
        assertThat(logged).anyMatch(line -> line.startsWith("SEVERE queue poison: working rows")
                && line.contains("failed outside the handler"));
    }

    /** Publishes jobs numbered {@code from} (inclusive) to {@code to} (exclusive) in one batch. */
    private void publish(int from, int to) {
        broker.publisher("poison", Job.class).publishAll(IntStream.range(from, to).mapToObj(Job::new).toList());
    }
}
