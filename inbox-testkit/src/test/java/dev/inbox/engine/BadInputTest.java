package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.Column;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.testkit.InboxTestKit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Bad input is refused or dead-lettered with a reason, never retried for ever, never run as code. */
class BadInputTest {
    private static final InboxSpec NULLABLE = InboxSpec.table("bad_jobs", Column.of("id").generated())
            .attempt(Column.of("attempt").generated()).lease(Column.of("locked_until")).payload(Column.of("payload"));

    private static InboxTestKit kit(List<Job> seen) {
        return InboxTestKit.sqlite().execute(
                "CREATE TABLE bad_jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, attempt INTEGER NOT NULL DEFAULT 1, locked_until TEXT,"
                        + " payload BLOB)",
                "CREATE TABLE bad_dead (id BIGINT PRIMARY KEY, payload BLOB, attempt INTEGER NOT NULL,"
                        + " error TEXT NOT NULL, failed_at TEXT NOT NULL)")
                .subscribe(Subscription.of("bad", NULLABLE, Job.class, (job, d) -> {
                    seen.add(job);
                    return Outcome.ack();
                }).maxAttempts(3).deadLetter("bad_dead"));
    }

    @Test
    void aNullPayloadRowIsDeadLetteredWithItsReason() {
        List<Job> seen = new CopyOnWriteArrayList<>();
        try (InboxTestKit kit = kit(seen).start()) {
            kit.execute("INSERT INTO bad_jobs (payload) VALUES (NULL)");
            kit.awaitCount("bad_dead", 1);
            assertThat(kit.query("SELECT error FROM bad_dead").get(0).get("error").toString())
                    .contains("cannot be decoded", "NULL");
            assertThat(seen).isEmpty();
        }
    }

    /** Before, a JSON null reached the handler as a null payload, which no publish can make. */
    @Test
    void aJsonNullPayloadIsDeadLetteredWithItsReason() {
        List<Job> seen = new CopyOnWriteArrayList<>();
        try (InboxTestKit kit = kit(seen).start()) {
            kit.execute("INSERT INTO bad_jobs (payload) VALUES ('null')");
            kit.awaitCount("bad_dead", 1);
            assertThat(kit.query("SELECT error FROM bad_dead").get(0).get("error").toString())
                    .contains("cannot be decoded", "JSON null");
            assertThat(seen).isEmpty();
        }
    }

    @Test
    void aPayloadOfTheWrongShapeOrNamingAClassIsDeadLetteredNotInstantiated() {
        List<Job> seen = new CopyOnWriteArrayList<>();
        try (InboxTestKit kit = kit(seen).start()) {
            kit.execute("INSERT INTO bad_jobs (payload) VALUES ('{\"n\": \"seven\"}')",
                    "INSERT INTO bad_jobs (payload) VALUES ('[\"java.lang.ProcessBuilder\", {\"command\": [\"id\"]}]')",
                    "INSERT INTO bad_jobs (payload) VALUES ('{\"@class\": \"java.lang.ProcessBuilder\", \"n\": 1}')");
            InboxTestKit.await(() -> kit.count("bad_dead") == 3, Duration.ofSeconds(20), () -> "three dead letters");
            assertThat(kit.count("bad_jobs")).isZero();
            assertThat(seen).isEmpty();
        }
    }

    @Test
    void theDefaultMapperHasNoDefaultTyping() {
        ObjectMapper json = InboxBroker.defaultJson();
        assertThat(json.getDeserializationConfig().getDefaultTyper(json.constructType(Object.class))).isNull();
        assertThat(json.getSerializationConfig().getDefaultTyper(json.constructType(Object.class))).isNull();
    }

    @Test
    void aPayloadOverTheColumnsSizeFailsThePublishClearly() {
        TestDatabase db = TestDatabase.MARIADB;
        db.execute("DROP TABLE IF EXISTS small_jobs", "CREATE TABLE small_jobs (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
                + " locked_until DATETIME NULL, payload VARBINARY(64) NOT NULL)");
        InboxSpec small = InboxSpec.table("small_jobs", Column.of("id").generated()).lease(Column.of("locked_until"))
                .payload(Column.of("payload"));
        InboxBroker broker = InboxBroker.fromUrl(db.url()).route("small", small).connect();
        try {
            assertThatThrownBy(() -> broker.publisher("small", Map.class).publish(Map.of("text", "x".repeat(100))))
                    .isInstanceOfSatisfying(InboxException.class, e -> {
                        assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                        assertThat(e.getMessage()).contains("queue small", "111 bytes",
                                "64 bytes the payload column small_jobs.payload holds");
                    });
            assertThat(db.count("small_jobs")).isZero();
        } finally {
            broker.shutdown();
        }
    }
}
