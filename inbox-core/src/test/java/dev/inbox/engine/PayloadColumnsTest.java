package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A payload kept as JSON or text rather than bytes is written and read alike. */
class PayloadColumnsTest {
    private static final String TABLE = "json_jobs";

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aJsonOrTextPayloadColumnWorksLikeBytes(TestDatabase db) {
        String ddl = switch (db) {
            case POSTGRES -> "CREATE TABLE json_jobs (job_id BIGSERIAL PRIMARY KEY, locked_until TIMESTAMPTZ, body JSONB NOT NULL)";
            case MARIADB, CONNECTOR_J, MYSQL -> "CREATE TABLE json_jobs (job_id BIGINT AUTO_INCREMENT PRIMARY KEY, locked_until DATETIME NULL,"
                    + " body JSON NOT NULL)";
            case SQLITE -> "CREATE TABLE json_jobs (job_id INTEGER PRIMARY KEY, locked_until TEXT, body TEXT NOT NULL)";
        };
        db.execute("DROP TABLE IF EXISTS " + TABLE, ddl);
        InboxSpec spec = InboxSpec.table(TABLE, Column.of("job_id").generated()).lease(Column.of("locked_until"))
                .payload(Column.of("body"));
        List<String> seen = new CopyOnWriteArrayList<>();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("json", spec, Job.class, (job, d) -> {
                    seen.add(job.n() + "@" + d.attempt());
                    return Outcome.ack();
                }))
                .connect();
        try {
            broker.publisher("json", Job.class).publish(new Job(42));
            Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(10), () -> "the JSON row acked");
        } finally {
            broker.shutdown();
        }
        assertThat(seen).containsExactly("42@0"); // no attempt column: the attempt is not tracked
    }
}
