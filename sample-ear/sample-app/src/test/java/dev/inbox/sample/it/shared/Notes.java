package dev.inbox.sample.it.shared;

import dev.inbox.Delivery;
import dev.inbox.Inbound;
import dev.inbox.Outcome;
import dev.inbox.Publisher;
import dev.inbox.cdi.Queue;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.stream.LongStream;

/**
 * The notes queue of an application on the standalone adapter: a transactional handler that writes
 * each note's effect through the delivery's connection (of the application's own data source), and
 * {@code POST /notes?from=&count=} to publish.
 */
@Path("notes")
@ApplicationScoped
public class Notes {

    @Inject
    @Queue("notes")
    Publisher<Note> publisher;

    public Outcome handle(@Inbound(queue = "notes", table = NoteJob.class, transactional = true, workers = 2)
            Note note, Delivery delivery) throws SQLException {
        try (PreparedStatement insert = delivery.connection().prepareStatement(
                "INSERT INTO note_effects (job) VALUES (?)")) {
            insert.setLong(1, note.job());
            insert.executeUpdate();
        }
        return Outcome.ack();
    }

    @POST
    public Response publish(@QueryParam("from") long from, @QueryParam("count") int count) {
        publisher.publishAll(LongStream.range(from, from + count).mapToObj(Note::new).toList());
        return Response.accepted().build();
    }
}
