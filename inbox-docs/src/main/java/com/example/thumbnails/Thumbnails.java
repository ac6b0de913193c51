package com.example.thumbnails;

// tag::handler[]
import dev.inbox.Inbound;
import dev.inbox.Outcome;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;

@ApplicationScoped
public class Thumbnails {
    @Inject
    Resizer resizer;

    public Outcome thumbnail(@Inbound(queue = "thumbnails", table = MakeThumbnail.class) Image image) {
        return resizer.resize(image) ? Outcome.ack() : Outcome.retry(Duration.ofMinutes(1));
    }
}
// end::handler[]
