package com.example.thumbnails;

import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.inbox.Subscription;
import dev.inbox.schema.InboxSchema;
import dev.inbox.testkit.InboxTestKit;
import org.junit.jupiter.api.Test;

/** The getting started's handler, run by the test kit on in-memory SQLite. */
class ThumbnailsTest {

    // tag::test[]
    @Test
    void aPublishedImageIsHandledAndItsJobAcked() {
        Thumbnails thumbnails = new Thumbnails();
        thumbnails.resizer = new Resizer();
        try (InboxTestKit kit = InboxTestKit.sqlite()) {
            kit.execute(InboxSchema.ddl(MakeThumbnail.class, "sqlite").toArray(String[]::new))
                    .subscribe(Subscription.of("thumbnails", MakeThumbnail.class, Image.class,
                            (image, delivery) -> thumbnails.thumbnail(image)))
                    .start();
            kit.publisher("thumbnails", Image.class).publish(new Image("cat.png"));
            kit.awaitCount("thumbnail_jobs", 0);            // handled and acked: the row is gone
        }
    }
    // end::test[]

    @Test
    void anImageWithoutPathIsRetriedNotAcked() {
        Thumbnails thumbnails = new Thumbnails();
        thumbnails.resizer = new Resizer();
        assertNotEquals(dev.inbox.Outcome.ack(), thumbnails.thumbnail(new Image(" ")));
    }
}
