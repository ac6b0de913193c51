package dev.inbox.engine;

import static dev.inbox.engine.TestTable.Feature.ATTEMPT;
import static dev.inbox.engine.TestTable.Feature.HEADERS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.Subscription;
import dev.inbox.testkit.InboxTestKit;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** maxAttempts with deadLetter: the last failed attempt and drop() move the row, keeping payload, headers, attempt and error. */
class DeadLetterTest {
    private TestTable table;
    private static final String DEAD = "dl_dead";

    private InboxTestKit kit;
    private final List<Integer> attempts = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (kit != null) {
            kit.close();
        }
    }

    private InboxTestKit start(FormCase c, dev.inbox.Handler<Job> handler) {
        TestDatabase db = c.db();
        table = TestTable.of("dl_jobs", c.form(), ATTEMPT, HEADERS);
        table.create(db);
        table.createDeadLetter(db, DEAD);
        kit = InboxTestKit.on(db.dataSource()).configure(b -> b.pollInterval(Duration.ofMillis(50)))
                .subscribe(Subscription.of("dl", table.spec(), Job.class, (job, d) -> {
                    attempts.add(d.attempt());
                    return handler.handle(job, d);
                }).maxAttempts(3).deadLetter(DEAD))
                .start();
        return kit;
    }

    private List<Map<String, Object>> dead() {
        return kit.query("SELECT id, payload, headers, attempt, error, failed_at FROM " + DEAD);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void theLastFailedAttemptMovesTheRowWithTheErrorText(FormCase c) {
        start(c, (job, d) -> {
            throw new IllegalStateException("card processor said no to order " + job.n());
        });
        kit.publisher("dl", Job.class).publish(new Job(42), PublishOptions.NONE.header("tenant", "acme"));
        InboxTestKit.await(() -> kit.count(DEAD) == 1, Duration.ofSeconds(20), () -> "dead-lettered: " + attempts);
        assertThat(kit.count(table.name())).isZero();
        assertThat(attempts).containsExactly(1, 2, 3);
        Map<String, Object> row = dead().get(0);
        assertThat(((Number) row.get("attempt")).intValue()).isEqualTo(3);
        assertThat(String.valueOf(row.get("error"))).contains("IllegalStateException", "card processor said no to order 42",
                "attempt 3 of 3");
        assertThat(new String((byte[]) row.get("payload"), StandardCharsets.UTF_8)).isEqualTo("{\"n\":42}");
        assertThat(String.valueOf(row.get("headers"))).contains("tenant").contains("acme");
        assertThat(row.get("failed_at")).isNotNull();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void dropMovesTheRowAtOnceWithItsReason(FormCase c) {
        start(c, (job, d) -> Outcome.drop("order " + job.n() + " was cancelled"));
        kit.publisher("dl", Job.class).publish(new Job(7));
        InboxTestKit.await(() -> kit.count(DEAD) == 1, Duration.ofSeconds(20), () -> "dead-lettered");
        assertThat(attempts).containsExactly(1);
        assertThat(dead().get(0)).containsEntry("error", "order 7 was cancelled");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aPoisonPayloadIsDeadLetteredWithTheReasonNeverRetried(FormCase c) {
        start(c, (job, d) -> Outcome.ack());
        TestDatabase db = c.db();
        db.execute("INSERT INTO " + table.name() + " (payload) VALUES (" + (db == TestDatabase.POSTGRES
                ? "convert_to('{\"n\":\"not a number\"}', 'UTF8')" : "'{\"n\":\"not a number\"}'") + ")");
        InboxTestKit.await(() -> kit.count(DEAD) == 1, Duration.ofSeconds(20), () -> "dead-lettered");
        assertThat(attempts).isEmpty();
        assertThat(String.valueOf(dead().get(0).get("error"))).contains("cannot be decoded", "Job");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aDeadLetterTableWithoutItsColumnsFailsAtOpenWithSchema(FormCase c) {
        TestDatabase db = c.db();
        table = TestTable.of("dl_jobs", c.form(), ATTEMPT, HEADERS);
        table.create(db);
        db.execute("DROP TABLE IF EXISTS " + DEAD, "CREATE TABLE " + DEAD + " (id BIGINT PRIMARY KEY)");
        kit = InboxTestKit.on(db.dataSource())
                .subscribe(Subscription.of("dl", table.spec(), Job.class, (job, d) -> Outcome.ack())
                        .maxAttempts(3).deadLetter(DEAD));
        org.assertj.core.api.Assertions.assertThatThrownBy(kit::start)
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(InboxException.Kind.SCHEMA);
                    assertThat(e.getMessage()).contains(DEAD, "payload", "error", "failed_at");
                });
    }

    /**
     * A SQLite table whose ids come again (INTEGER PRIMARY KEY without AUTOINCREMENT) would send a
     * second row to the dead-letter table with an id already there, and fail that move for ever: it is
     * refused when the subscription opens, saying how to declare the table.
     */
    @org.junit.jupiter.api.Test
    void aSqliteTableThatReusesIdsCannotDeadLetter() {
        TestDatabase db = TestDatabase.SQLITE;
        table = TestTable.of("dl_jobs", ClaimForm.LEASE, ATTEMPT);
        table.createDeadLetter(db, DEAD);
        db.execute("DROP TABLE IF EXISTS dl_jobs", "CREATE TABLE dl_jobs (id INTEGER PRIMARY KEY, attempt INTEGER NOT"
                + " NULL DEFAULT 1, locked_until TEXT, payload BLOB NOT NULL)");
        kit = InboxTestKit.on(db.dataSource())
                .subscribe(Subscription.of("dl", table.spec(), Job.class, (job, d) -> Outcome.ack())
                        .maxAttempts(3).deadLetter(DEAD));
        org.assertj.core.api.Assertions.assertThatThrownBy(kit::start)
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                    assertThat(e.getMessage()).contains("table dl_jobs gives a new row the id of the last row"
                            + " deleted", "INTEGER PRIMARY KEY AUTOINCREMENT");
                });
    }
}
