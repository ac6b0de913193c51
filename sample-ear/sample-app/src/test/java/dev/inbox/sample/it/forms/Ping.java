package dev.inbox.sample.it.forms;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/** {@code GET /ping} answers once the application runs. */
@Path("ping")
public class Ping {
    @GET
    public String ping() {
        return "pong";
    }
}
