package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A settlement that fails, fails alone: the other rows of its claim settle as their handlers said,
 * the failed row's attempt stays counted, and the row waits out a back-off instead of coming back
 * at once, claim after claim, for ever.
 */
class SettlementIsolationTest {
    private static final String DEAD = "isolation_dead";
    private static final int JOBS = 40;
    private static final int POISON = 7;

    private InboxBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.shutdown(Duration.ofSeconds(5));
        }
    }

    /**
     * One claim takes all 40 rows; the handler of row 7 drops it, and its dead-letter insert fails
     * (a check on the dead-letter table refuses its error text). The 39 others are handled once,
     * and row 7 is not handled again for the back-off of its counted attempt.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aDeadLetterThatFailsLeavesTheClaimsOtherRowsSettledAndBacksOff(FormCase c) {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("isolation_jobs", c.form(), TestTable.Feature.ATTEMPT,
                TestTable.Feature.RETRY_AFTER);
        table.create(db);
        createRefusingDeadLetterTable(db);
        Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
        broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50));
        broker.route("isolation", table.spec()).connect();
        broker.publisher("isolation", Job.class).publishAll(IntStream.range(0, JOBS).mapToObj(Job::new).toList());
        broker.shutdown(Duration.ofSeconds(5));

        List<String> logged = LogCapture.during(() -> {
            broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                    .subscribe(Subscription.of("isolation", table.spec(), Job.class, (job, d) -> {
                        handled.computeIfAbsent(job.n(), n -> new AtomicInteger()).incrementAndGet();
                        return job.n() == POISON ? Outcome.drop("poison " + job.n()) : Outcome.ack();
                    }).batchSize(JOBS).workers(1).maxAttempts(5).deadLetter(DEAD)
                            .retryBackoff(Duration.ofSeconds(30)).retryBackoffMax(Duration.ofSeconds(60)))
                    .connect();
            Eventually.await(() -> db.count(table.name()) == 1, Duration.ofSeconds(20),
                    () -> db.count(table.name()) + " rows left, handled " + handled);
            pause(Duration.ofSeconds(2)); // long enough for many claims, far shorter than the back-off
        });

        assertThat(handled).hasSize(JOBS);
        assertThat(handled.entrySet()).as("every row that acked was handled once")
                .filteredOn(e -> e.getKey() != POISON).allSatisfy(e -> assertThat(e.getValue()).hasValue(1));
        assertThat(handled.get(POISON)).as("the row whose dead letter failed waits out its back-off").hasValue(1);
        assertThat(db.count(table.name() + " WHERE attempt = 2")).as("its attempt stays counted").isOne();
        assertThat(db.count(DEAD)).isZero();
        assertThat(logged).as("the failure logged with what to change, once")
                .filteredOn(line -> line.contains(DEAD)).hasSizeBetween(1, 2)
                .anySatisfy(line -> assertThat(line).contains("poison " + POISON, "comes back after its retry back-off",
                        "to dead-letter table " + DEAD + " (").doesNotContain("INSERT"));
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A dead-letter table that refuses any row whose error text says poison. */
    private static void createRefusingDeadLetterTable(TestDatabase db) {
        String time = switch (db) {
            case POSTGRES -> "TIMESTAMPTZ";
            case MARIADB, CONNECTOR_J, MYSQL -> "DATETIME(6)";
            case SQLITE -> "TEXT";
        };
        db.execute("DROP TABLE IF EXISTS " + DEAD, "CREATE TABLE " + DEAD + " (id BIGINT PRIMARY KEY, payload "
                + (db == TestDatabase.POSTGRES ? "BYTEA" : "BLOB") + " NOT NULL, attempt INTEGER NOT NULL,"
                + " error " + (db.mysqlFamily() ? "VARCHAR(2000)" : "TEXT") + " NOT NULL CHECK (error NOT LIKE '%poison%'),"
                + " failed_at " + time + " NOT NULL)");
    }
}
