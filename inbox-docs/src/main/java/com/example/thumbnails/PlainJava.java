package com.example.thumbnails;

import dev.inbox.Outcome;
import dev.inbox.Publisher;
import dev.inbox.ShutdownReport;
import dev.inbox.Subscription;
import dev.inbox.engine.InboxBroker;
import java.time.Duration;

/** The engine without a server: a broker on a JDBC URL, its handler a lambda. */
public final class PlainJava {
    private PlainJava() {}

    public static void main(String[] args) {
        Resizer resizer = new Resizer();
        // tag::broker[]
        InboxBroker broker = InboxBroker.fromUrl("jdbc:postgresql://127.0.0.1/app?user=app")  // no I/O yet
                .lease(Duration.ofSeconds(30))
                .subscribe(Subscription.of("thumbnails", MakeThumbnail.class, Image.class,
                        (image, delivery) -> resizer.resize(image) ? Outcome.ack() : Outcome.retry()).workers(4))
                .connect();                 // reaches the database, opens the subscriptions, starts claiming
        Publisher<Image> thumbnails = broker.publisher("thumbnails", Image.class);
        thumbnails.publish(new Image("cat.png"));
        ShutdownReport report = broker.shutdown();
        // end::broker[]
        System.out.println(report);
    }
}
