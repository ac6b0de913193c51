package dev.inbox.engine;

import static dev.inbox.engine.TestTable.Feature.ATTEMPT;
import static dev.inbox.engine.TestTable.Feature.HEADERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ClaimForm;
import dev.inbox.DeadLetter;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.Subscription;
import dev.inbox.testkit.InboxTestKit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An operator's actions on a queue's dead letters: listed newest first with payload, headers,
 * attempt, error and time; retried (back into the queue as a new job on its first attempt, handled
 * once even when two operators retry it at once) and deleted; a dead letter retried or deleted
 * already, an unknown queue and a queue without a dead-letter table are NOT_FOUND.
 */
class DeadLetterAdminTest {
    private static final String DEAD = "admin_dead";

    private InboxTestKit kit;
    private final Set<Integer> failing = ConcurrentHashMap.newKeySet();
    private final List<Integer> handled = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (kit != null) {
            kit.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB", "CONNECTOR_J"})
    void deadLettersAreListedRetriedOnceAndDeleted(TestDatabase db) throws Exception {
        TestTable table = TestTable.of("admin_jobs", ClaimForm.LEASE, ATTEMPT, HEADERS);
        table.create(db);
        table.createDeadLetter(db, DEAD);
        TestTable plain = TestTable.of("admin_plain", ClaimForm.LEASE, ATTEMPT);
        plain.create(db);
        kit = InboxTestKit.on(db.dataSource()).configure(b -> b.pollInterval(Duration.ofMillis(50)))
                .subscribe(Subscription.of("admin", table.spec(), Job.class, (job, d) -> {
                    if (failing.contains(job.n())) {
                        throw new IllegalStateException("job " + job.n() + " cannot be handled yet");
                    }
                    handled.add(job.n());
                    return Outcome.ack();
                }).maxAttempts(1).deadLetter(DEAD))
                .subscribe(Subscription.of("plain", plain.spec(), Job.class, (job, d) -> Outcome.ack()))
                .start();
        InboxBroker broker = kit.broker();
        failing.addAll(List.of(1, 2, 3));
        var publisher = kit.publisher("admin", Job.class);
        for (int n = 1; n <= 3; n++) {
            publisher.publish(new Job(n), PublishOptions.NONE.header("tenant", "acme"));
        }
        kit.awaitCount(DEAD, 3);

        List<DeadLetter> dead = broker.deadLetters("admin", 10);
        assertThat(dead).hasSize(3);
        assertThat(dead).allSatisfy(letter -> {
            assertThat(letter.headers()).contains("\"tenant\"", "\"acme\"");
            assertThat(letter.attempt()).isEqualTo(1);
            assertThat(letter.error()).contains("cannot be handled yet");
            assertThat(letter.failedAt()).isNotNull();
        });
        assertThat(broker.deadLetters("admin", 2)).hasSize(2);
        DeadLetter first = letterOf(dead, 1);
        DeadLetter second = letterOf(dead, 2);
        DeadLetter third = letterOf(dead, 3);

        failing.clear();
        broker.retryDeadLetter("admin", first.id());
        InboxTestKit.await(() -> handled.contains(1), Duration.ofSeconds(20), () -> "job 1 handled: " + handled);
        assertThat(broker.deadLetters("admin", 10)).extracting(DeadLetter::id)
                .containsExactlyInAnyOrder(second.id(), third.id());
        assertThatThrownBy(() -> broker.retryDeadLetter("admin", first.id()))
                .isInstanceOfSatisfying(InboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(InboxException.Kind.NOT_FOUND))
                .hasMessageContaining("table " + DEAD + " has no dead letter " + first.id());

        broker.deleteDeadLetter("admin", second.id());
        assertThat(broker.deadLetters("admin", 10)).extracting(DeadLetter::id).containsExactly(third.id());
        assertThatThrownBy(() -> broker.deleteDeadLetter("admin", second.id()))
                .isInstanceOfSatisfying(InboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(InboxException.Kind.NOT_FOUND));

        // Two operators retry job 3 at once: one moves it, the other finds it gone; it is handled once.
        CountDownLatch go = new CountDownLatch(1);
        List<Object> results = new CopyOnWriteArrayList<>();
        List<Thread> operators = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Thread operator = new Thread(() -> {
                try {
                    go.await();
                    broker.retryDeadLetter("admin", third.id());
                    results.add("moved");
                } catch (InboxException e) {
                    results.add(e.kind());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            operator.start();
            operators.add(operator);
        }
        go.countDown();
        for (Thread operator : operators) {
            operator.join(30_000);
        }
        assertThat(results).containsExactlyInAnyOrder("moved", InboxException.Kind.NOT_FOUND);
        InboxTestKit.await(() -> handled.contains(3), Duration.ofSeconds(20), () -> "job 3 handled: " + handled);
        Thread.sleep(300); // a second copy, were there one, would be handled by now
        assertThat(handled).containsExactlyInAnyOrder(1, 3);
        assertThat(kit.count(DEAD)).isZero();
        assertThat(kit.count("admin_jobs")).as("both retried jobs acked").isZero();

        assertThatThrownBy(() -> broker.deadLetters("nowhere", 10)).isInstanceOfSatisfying(InboxException.class,
                e -> assertThat(e.kind()).isEqualTo(InboxException.Kind.NOT_FOUND));
        assertThatThrownBy(() -> broker.retryDeadLetter("plain", 1)).isInstanceOfSatisfying(InboxException.class,
                e -> assertThat(e.kind()).isEqualTo(InboxException.Kind.NOT_FOUND))
                .hasMessageContaining("declares none");
    }

    record Note(String text) {}

    /**
     * Before, a list read every payload whole: fifty dead letters of 2 MB were 100 MB read for one
     * page. Now a list reads the head of each (at most {@link DeadLetter#PREVIEW} characters) and its
     * length in SQL, and one letter reads as much as asked, a character never cut in two.
     */
    @ParameterizedTest(name = "{0} {1}")
    @org.junit.jupiter.params.provider.CsvSource({"SQLITE, binary", "POSTGRES, binary", "MARIADB, binary",
            "CONNECTOR_J, binary", "POSTGRES, text", "POSTGRES, jsonb", "MARIADB, text", "CONNECTOR_J, text"})
    void aListReadsTheHeadOfEachPayloadAndItsLength(TestDatabase db, String payloadType) {
        TestTable table = TestTable.of("admin_big_jobs", ClaimForm.LEASE, ATTEMPT);
        table.create(db);
        table.createDeadLetter(db, DEAD);
        if (!payloadType.equals("binary")) {
            for (String name : List.of("admin_big_jobs", DEAD)) {
                db.execute(db == TestDatabase.POSTGRES ? "ALTER TABLE " + name + " ALTER COLUMN payload TYPE "
                        + payloadType + " USING convert_from(payload, 'UTF8')::" + payloadType
                        : "ALTER TABLE " + name + " MODIFY payload LONGTEXT NOT NULL");
            }
        }
        kit = InboxTestKit.on(db.dataSource()).configure(b -> b.pollInterval(Duration.ofMillis(50)))
                .subscribe(Subscription.of("big", table.spec(), Note.class, (note, d) -> Outcome.drop("kept"))
                        .maxAttempts(1).deadLetter(DEAD))
                .start();
        // "é" is two bytes and "€" three: a head of bytes ends inside one of them at some length.
        String text = "é€".repeat(5_000); // 25,000 bytes: a MariaDB BLOB holds 65,535
        kit.publisher("big", Note.class).publish(new Note(text));
        kit.publisher("big", Note.class).publish(new Note("small"));
        kit.awaitCount(DEAD, 2);
        long whole = ("{\"text\":\"" + text + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8).length;

        List<DeadLetter> dead = kit.broker().deadLetters("big", 10);
        DeadLetter big = dead.stream().filter(DeadLetter::payloadCut).findFirst().orElseThrow();
        // JSONB keeps its own text of the value: a space after the colon.
        assertThat(big.payloadLength()).isEqualTo(whole + (payloadType.equals("jsonb") ? 1 : 0));
        assertThat(big.payload().length()).isBetween(DeadLetter.PREVIEW / 3, DeadLetter.PREVIEW);
        assertThat(big.payload().replace(": ", ":")).startsWith("{\"text\":\"é€é€").doesNotContain("\uFFFD");
        DeadLetter small = dead.stream().filter(letter -> !letter.payloadCut()).findFirst().orElseThrow();
        assertThat(small.payload().replace(" ", "")).isEqualTo("{\"text\":\"small\"}");
        assertThat(small.payloadLength()).isEqualTo(small.payload().length());

        for (int characters : List.of(12, 13, 14, 10_000)) {
            DeadLetter head = kit.broker().deadLetter("big", big.id(), characters);
            assertThat(head.payloadCut()).isTrue();
            assertThat(head.payload().replace(": ", ":")).as(characters + " of " + payloadType).doesNotContain("\uFFFD")
                    .startsWith("{\"text\":\"é");
            assertThat(head.payload().length()).isLessThanOrEqualTo(characters);
        }
        assertThat(kit.broker().deadLetter("big", big.id(), 1_000_000).payload().replace(" ", ""))
                .isEqualTo("{\"text\":\"" + text + "\"}");
        assertThatThrownBy(() -> kit.broker().deadLetter("big", 987_654, 10)).isInstanceOfSatisfying(
                InboxException.class, e -> assertThat(e.kind()).isEqualTo(InboxException.Kind.NOT_FOUND));
    }

    private static DeadLetter letterOf(List<DeadLetter> dead, int n) {
        return dead.stream().filter(letter -> letter.payload().replace(" ", "").contains("\"n\":" + n)).findFirst()
                .orElseThrow(() -> new AssertionError("no dead letter of job " + n + " in " + dead));
    }
}
