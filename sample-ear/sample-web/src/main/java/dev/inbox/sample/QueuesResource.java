package dev.inbox.sample;

import dev.inbox.InboxAdmin;
import jakarta.inject.Inject;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;
import java.util.TreeMap;

/** {@code GET /queues}: per queue, the rows ready, in work and dead. */
@Path("queues")
public class QueuesResource {

    /** One queue's rows, and how long its oldest ready job has waited (queues whose table has published_at). */
    @JsonbPropertyOrder({"ready", "inWork", "scheduled", "dead", "oldestReadySeconds"})
    public record Counts(long ready, long inWork, long scheduled, long dead, Long oldestReadySeconds) {}

    @Inject
    InboxAdmin queues;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Counts> queues() {
        Map<String, Counts> out = new TreeMap<>();
        queues.stats().forEach((queue, s) -> out.put(queue, new Counts(s.ready(), s.inWork(), s.scheduled(), s.dead(),
                s.oldestReady() == null ? null : s.oldestReady().toSeconds())));
        return out;
    }
}
