package dev.inbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Attempt;
import dev.inbox.Delivery;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Outcome;
import dev.inbox.Payload;
import dev.inbox.Subscription;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The README's first example: a handler unit-tested on in-memory SQLite. */
class InboxTestKitTest {

    @InboxTable("thumbnail_jobs")
    public record MakeThumbnail(
            @Id(generated = true) long id,
            @Attempt(generated = true) short attempt,
            @LockedUntil Instant lockedUntil,
            @Payload byte[] payload) {}

    public record Image(String path) {}

    /** The handler under test: renders an image, retries one it cannot read yet. */
    static final class Thumbnails {
        final List<String> rendered = new CopyOnWriteArrayList<>();

        Outcome thumbnail(Image image, Delivery delivery) {
            if (image.path().endsWith(".tmp") && delivery.attempt() == 1) {
                return Outcome.retry();
            }
            rendered.add(image.path());
            return Outcome.ack();
        }
    }

    private static final String SCHEMA = "CREATE TABLE thumbnail_jobs (id INTEGER PRIMARY KEY,"
            + " attempt INTEGER NOT NULL DEFAULT 1, locked_until TEXT, payload BLOB NOT NULL)";

    @Test
    void aHandlerRunsOnInMemorySqlite() {
        Thumbnails thumbnails = new Thumbnails();
        try (InboxTestKit kit = InboxTestKit.sqlite()) {
            kit.execute(SCHEMA)
                    .subscribe(Subscription.of("thumbnails", MakeThumbnail.class, Image.class, thumbnails::thumbnail))
                    .start();
            kit.publisher("thumbnails", Image.class).publish(new Image("cat.png"));
            kit.publisher("thumbnails", Image.class).publish(new Image("upload.tmp"));
            kit.awaitCount("thumbnail_jobs", 0);
            assertThat(thumbnails.rendered).containsExactlyInAnyOrder("cat.png", "upload.tmp");
        }
    }

    @Test
    void tablesCanBeReadAfterAPublish() {
        try (InboxTestKit kit = InboxTestKit.sqlite()) {
            kit.execute(SCHEMA).route("thumbnails", MakeThumbnail.class).start();
            kit.publisher("thumbnails", Image.class).publish(new Image("dog.png"));
            List<Map<String, Object>> rows = kit.query("SELECT attempt, locked_until, payload FROM thumbnail_jobs");
            assertThat(rows).hasSize(1);
            assertThat(rows.get(0)).containsEntry("attempt", 1).containsEntry("locked_until", null);
            assertThat(new String((byte[]) rows.get(0).get("payload"), StandardCharsets.UTF_8))
                    .isEqualTo("{\"path\":\"dog.png\"}");
        }
    }

    @Test
    void eachKitHasADatabaseOfItsOwn() {
        try (InboxTestKit one = InboxTestKit.sqlite(); InboxTestKit two = InboxTestKit.sqlite()) {
            one.execute(SCHEMA, "INSERT INTO thumbnail_jobs (payload) VALUES ('{}')");
            two.execute(SCHEMA);
            assertThat(one.count("thumbnail_jobs")).isEqualTo(1);
            assertThat(two.count("thumbnail_jobs")).isZero();
        }
    }
}
