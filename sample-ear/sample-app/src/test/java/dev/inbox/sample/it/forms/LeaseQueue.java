package dev.inbox.sample.it.forms;

import dev.inbox.Delivery;
import dev.inbox.Inbound;
import dev.inbox.Outcome;
import dev.inbox.Publisher;
import dev.inbox.cdi.Queue;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;

/** The lease form's queue: its transactional handler, and {@code POST /lease/{mode}?from=&count=} to publish. */
@Path("lease")
@ApplicationScoped
public class LeaseQueue {

    @Inject
    @Queue("it-lease")
    Publisher<Entry> publisher;

    @Inject
    Effects effects;

    public Outcome handle(@Inbound(queue = "it-lease", table = LeaseEntry.class, transactional = true, workers = 2)
            Entry entry, Delivery delivery) throws Exception {
        return effects.record("lease", entry, delivery);
    }

    @POST
    @Path("{mode}")
    public Response publish(@PathParam("mode") String mode, @QueryParam("from") long from,
            @QueryParam("count") int count) {
        publisher.publishAll(Jobs.range(from, count, mode));
        return Response.accepted().build();
    }
}
