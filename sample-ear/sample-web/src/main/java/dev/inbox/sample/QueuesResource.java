package dev.inbox.sample;

import dev.inbox.cdi.InboxQueues;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code GET /queues}: per queue, the rows ready, in work and dead. */
@Path("queues")
public class QueuesResource {

    @Inject
    InboxQueues queues;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Map<String, Long>> queues() {
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        queues.stats().forEach((queue, stats) -> out.put(queue,
                Map.of("ready", stats.ready(), "inWork", stats.inWork(), "dead", stats.dead())));
        return out;
    }
}
