package dev.inbox.engine;

import static dev.inbox.engine.TestTable.Feature.ATTEMPT;
import static dev.inbox.engine.TestTable.Feature.LAST_ERROR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ClaimForm;
import dev.inbox.DeadLetter;
import dev.inbox.Handler;
import dev.inbox.Id;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.InboxTable;
import dev.inbox.LastError;
import dev.inbox.Outcome;
import dev.inbox.Payload;
import dev.inbox.Subscription;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A table with a last error column keeps why its job's newest attempt failed: the exception's
 * class, message and first frames, or the handler's retry reason, without passwords and cut to the
 * column; a dead letter keeps it too. Before, nothing kept it: a job failing over and over showed
 * only its attempt count, and a dead letter one line naming the exception.
 */
class LastErrorTest {
    private static final String QUEUE = "le_jobs";
    private static final String DEAD = "le_dead";
    private static final String SECRET = "s3cret-Pa55";

    private InboxBroker broker;
    /** Let go at the end of each test: handlers that wait so that a row can be read between attempts. */
    private final CountDownLatch end = new CountDownLatch(1);

    @AfterEach
    void stop() {
        end.countDown();
        if (broker != null) {
            broker.shutdown(Duration.ofSeconds(5));
        }
    }

    private InboxBroker open(TestDatabase db, InboxSpec spec, Function<Subscription<Job>, Subscription<Job>> options,
            Handler<Job> handler) {
        broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(options.apply(Subscription.of("le", spec, Job.class, handler)
                        .retryBackoff(Duration.ofMillis(100))))
                .connect();
        return broker;
    }

    private String lastError(TestDatabase db) {
        return db.text("SELECT last_error FROM " + QUEUE);
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) {
        Eventually.await(condition, Duration.ofSeconds(30), () -> what);
    }

    private void waitForTheEnd() throws InterruptedException {
        end.await(60, TimeUnit.SECONDS);
    }

    /** Thrown from a method of its own, so that the frames name it. */
    private static Outcome declineCard(String message) {
        throw new IllegalStateException(message, new java.net.SocketTimeoutException("Read timed out"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aThrowingHandlerLeavesTheClassMessageAndFirstFramesInTheRow(FormCase c) throws Exception {
        TestDatabase db = c.db();
        TestTable table = TestTable.of(QUEUE, c.form(), ATTEMPT, LAST_ERROR);
        table.create(db);
        CountDownLatch second = new CountDownLatch(1);
        open(db, table.spec(), s -> s, (job, d) -> {
            if (d.attempt() == 1) {
                return declineCard("card declined for order 42");
            }
            second.countDown();
            waitForTheEnd();
            return Outcome.ack();
        }).publisher("le", Job.class).publish(new Job(1));
        assertThat(second.await(30, TimeUnit.SECONDS)).as("the second attempt began").isTrue();

        String text = lastError(db);
        assertThat(text).startsWith("java.lang.IllegalStateException: card declined for order 42\n\tat "
                + LastErrorTest.class.getName() + ".declineCard(LastErrorTest.java:")
                .contains("\nCaused by: java.net.SocketTimeoutException: Read timed out")
                .containsPattern("\n\t\\.\\.\\. \\d+ more");
        assertThat(text.split("\n\tat ", -1)).as("five frames of each exception, no more").hasSize(1 + 5 + 5);
    }

    /** A retry's reason is written; the next failure replaces it: the row keeps its newest error. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "MYSQL", mode = EnumSource.Mode.EXCLUDE)
    void aRetryReasonIsWrittenAndTheNewestErrorReplacesIt(TestDatabase db) throws Exception {
        TestTable table = TestTable.of(QUEUE, ClaimForm.LEASE, ATTEMPT, LAST_ERROR);
        table.create(db);
        CountDownLatch second = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        CountDownLatch third = new CountDownLatch(1);
        open(db, table.spec(), s -> s, (job, d) -> {
            switch (d.attempt()) {
                case 1 -> {
                    return Outcome.retry(Duration.ZERO, "the processor answered 503 (token " + SECRET
                            + " in jdbc:postgresql://db/app?password=" + SECRET + ")");
                }
                case 2 -> {
                    second.countDown();
                    goOn.await(30, TimeUnit.SECONDS);
                    return Outcome.retry();
                }
                default -> {
                    third.countDown();
                    waitForTheEnd();
                    return Outcome.ack();
                }
            }
        }).publisher("le", Job.class).publish(new Job(1));
        assertThat(second.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(lastError(db)).isEqualTo("the processor answered 503 (token " + SECRET
                + " in jdbc:postgresql://db/app?password=***)");
        goOn.countDown();
        assertThat(third.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(lastError(db)).isEqualTo("the handler asked for a retry");
    }

    /** The last attempt's failure goes with the row into the dead-letter table, and back out of the broker. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "MYSQL", mode = EnumSource.Mode.EXCLUDE)
    void aDeadLetterKeepsTheLastError(TestDatabase db) {
        TestTable table = TestTable.of(QUEUE, ClaimForm.LEASE, ATTEMPT, LAST_ERROR);
        table.create(db);
        table.createDeadLetter(db, DEAD);
        open(db, table.spec(), s -> s.maxAttempts(2).deadLetter(DEAD), (job, d) -> {
            if (job.n() == 2 && d.attempt() == 2) {
                return Outcome.drop("order 2 was cancelled");
            }
            return declineCard("attempt " + d.attempt() + " of job " + job.n());
        });
        broker.publisher("le", Job.class).publish(new Job(1));
        broker.publisher("le", Job.class).publish(new Job(2));
        await(() -> db.count(DEAD) == 2, "both rows dead-lettered");

        List<DeadLetter> letters = broker.deadLetters("le", 10);
        DeadLetter thrown = letters.stream().filter(l -> l.payload().contains("1")).findFirst().orElseThrow();
        assertThat(thrown.error()).isEqualTo("java.lang.IllegalStateException: attempt 2 of job 1 on attempt 2 of 2");
        assertThat(thrown.lastError()).startsWith("java.lang.IllegalStateException: attempt 2 of job 1\n\tat ")
                .contains("Caused by: java.net.SocketTimeoutException");
        assertThat(broker.deadLetter("le", thrown.id(), 10).lastError()).isEqualTo(thrown.lastError());
        // Dropped by its handler: the dead letter keeps the failure an earlier attempt left in the row.
        DeadLetter dropped = letters.stream().filter(l -> l.payload().contains("2")).findFirst().orElseThrow();
        assertThat(dropped.error()).isEqualTo("order 2 was cancelled");
        assertThat(dropped.lastError()).startsWith("java.lang.IllegalStateException: attempt 1 of job 2\n");
    }

    /** At most 2,000 characters, fewer where the database keeps the column's declared length. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "MYSQL", mode = EnumSource.Mode.EXCLUDE)
    void theTextIsCutToTheColumnsLength(TestDatabase db) {
        for (String type : List.of("TEXT", "VARCHAR(300)")) {
            TestTable.of(QUEUE, ClaimForm.LEASE, ATTEMPT).create(db);
            db.execute("ALTER TABLE " + QUEUE + " ADD last_error " + type);
            open(db, TestTable.of(QUEUE, ClaimForm.LEASE, ATTEMPT, LAST_ERROR).spec(),
                    s -> s.retryBackoff(Duration.ofMinutes(5)), (job, d) -> declineCard("x".repeat(5000)))
                    .publisher("le", Job.class).publish(new Job(1));
            int expected = type.equals("TEXT") || db == TestDatabase.SQLITE ? 2000 : 300;
            await(() -> lastError(db) != null, "the failure written");
            assertThat(lastError(db)).as(type).hasSize(expected).endsWith("xxx...")
                    .startsWith("java.lang.IllegalStateException: xxx");
            broker.shutdown(Duration.ofSeconds(5));
        }
    }

    /** A driver's exception can hold the URL with its password: the column never does. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "MYSQL", mode = EnumSource.Mode.EXCLUDE)
    void passwordsAreRedacted(TestDatabase db) {
        TestTable table = TestTable.of(QUEUE, ClaimForm.LEASE, ATTEMPT, LAST_ERROR);
        table.create(db);
        open(db, table.spec(), s -> s.retryBackoff(Duration.ofMinutes(5)), (job, d) -> {
            throw new IllegalStateException("booking failed", new SQLException("Connection to"
                    + " jdbc:postgresql://db/app?user=app&password=" + SECRET + " refused"));
        }).publisher("le", Job.class).publish(new Job(1));
        await(() -> lastError(db) != null, "the failure written");
        assertThat(lastError(db)).contains("java.sql.SQLException: Connection to jdbc:postgresql://db/app?user=app"
                + "&password=*** refused").doesNotContain(SECRET);
    }

    /** A column that cannot hold the text, in the queue or in its dead-letter table, stops the open. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "MYSQL", mode = EnumSource.Mode.EXCLUDE)
    void aColumnThatCannotHoldTheTextIsRefusedAtOpen(TestDatabase db) {
        TestTable table = TestTable.of(QUEUE, ClaimForm.LEASE, ATTEMPT, LAST_ERROR);
        String problem = switch (db) {
            case POSTGRES -> "is int4, not text: use TEXT";
            case CONNECTOR_J, MYSQL -> "is INT, not text: use TEXT";
            default -> "is INTEGER, not text: use TEXT"; // MariaDB's driver names INT so
        };
        TestTable.of(QUEUE, ClaimForm.LEASE, ATTEMPT).create(db);
        db.execute("ALTER TABLE " + QUEUE + " ADD last_error INTEGER");
        assertRefused(db, table, s -> s, "table " + QUEUE + ": column last_error " + problem);

        if (db != TestDatabase.SQLITE) { // SQLite keeps any length in any column
            TestTable.of(QUEUE, ClaimForm.LEASE, ATTEMPT).create(db);
            db.execute("ALTER TABLE " + QUEUE + " ADD last_error VARCHAR(50)");
            assertRefused(db, table, s -> s, "column last_error is", "(50), too short", "make it a TEXT column");
        }
        if (db.mysqlFamily()) {
            TestTable.of(QUEUE, ClaimForm.LEASE, ATTEMPT).create(db);
            db.execute("ALTER TABLE " + QUEUE + " ADD last_error TINYTEXT");
            assertRefused(db, table, s -> s, "column last_error is TINYTEXT, 255 bytes", "use TEXT");
        }

        table.create(db);
        TestTable.of(QUEUE, ClaimForm.LEASE, ATTEMPT).createDeadLetter(db, DEAD); // without last_error
        assertRefused(db, table, s -> s.maxAttempts(2).deadLetter(DEAD), "dead-letter table " + DEAD,
                "does not have the columns", "last_error");
        db.execute("ALTER TABLE " + DEAD + " ADD last_error INTEGER");
        assertRefused(db, table, s -> s.maxAttempts(2).deadLetter(DEAD), "dead-letter table " + DEAD,
                "column last_error " + problem);
    }

    private void assertRefused(TestDatabase db, TestTable table, Function<Subscription<Job>, Subscription<Job>> options,
            String... message) {
        assertThatThrownBy(() -> open(db, table.spec(), options, (job, d) -> Outcome.ack()))
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(InboxException.Kind.SCHEMA);
                    assertThat(e.getMessage()).contains(message);
                });
    }

    @InboxTable("le_jobs")
    record NumberedError(@Id(generated = true) long id, @Payload byte[] payload, @LastError int lastError) {}

    @InboxTable("le_jobs")
    record NamedError(@Id(generated = true) long id, @Payload byte[] payload, @LastError("failure") String error) {}

    @Test
    void aLastErrorComponentIsTextNamedLikeTheOtherColumns() {
        assertThatThrownBy(() -> InboxSpec.of(NumberedError.class)).isInstanceOfSatisfying(InboxException.class,
                e -> {
                    assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                    assertThat(e.getMessage()).contains("NumberedError.lastError is a last error of type int",
                            "declare it String");
                });
        assertThat(InboxSpec.of(NamedError.class).lastError()).hasValueSatisfying(c ->
                assertThat(c.name()).isEqualTo("failure"));
    }

    /** A table without the column works as before, and its dead letters have no last error. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "MYSQL", mode = EnumSource.Mode.EXCLUDE)
    void aTableWithoutTheColumnWorksAsBefore(TestDatabase db) {
        TestTable table = TestTable.of(QUEUE, ClaimForm.LEASE, ATTEMPT);
        table.create(db);
        table.createDeadLetter(db, DEAD);
        open(db, table.spec(), s -> s.maxAttempts(2).deadLetter(DEAD),
                (job, d) -> d.attempt() == 1 ? Outcome.retry(Duration.ZERO, "not yet") : declineCard("gone"))
                .publisher("le", Job.class).publish(new Job(1));
        await(() -> db.count(DEAD) == 1, "the row dead-lettered");
        DeadLetter letter = broker.deadLetters("le", 10).get(0);
        assertThat(letter.error()).isEqualTo("java.lang.IllegalStateException: gone on attempt 2 of 2");
        assertThat(letter.lastError()).isNull();
    }
}
