package dev.inbox.sample;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;

/** The sample's queues; empty until the resource adapter and the handlers arrive. */
@Path("queues")
public class QueuesResource {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> queues() {
        return Map.of();
    }
}
