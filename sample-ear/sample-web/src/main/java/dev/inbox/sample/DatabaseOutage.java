package dev.inbox.sample;

import dev.inbox.InboxException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a failure of Inbox means to a client: the database out of reach (or the application
 * stopping) is 503 with {@code Retry-After}, a publish Inbox refuses is the request's fault (400), a
 * dead letter or queue that is not there is 404;
 * no answer carries the database's own error text, which goes to the log.
 */
@Provider
public class DatabaseOutage implements ExceptionMapper<InboxException> {
    private static final Logger LOG = Logger.getLogger(DatabaseOutage.class.getName());
    /** Seconds a client waits before trying again: about what a database restart takes. */
    static final int RETRY_AFTER = 5;

    @Override
    public Response toResponse(InboxException e) {
        return switch (e.kind()) {
            case DATABASE, CONNECT, CLOSED -> unavailable(e);
            case DECLARATION, WRITE_LOCK_HELD -> Response.status(Response.Status.BAD_REQUEST)
                    .type(MediaType.APPLICATION_JSON).entity(Map.of("error", e.detail())).build();
            case NOT_FOUND -> Response.status(Response.Status.NOT_FOUND)
                    .type(MediaType.APPLICATION_JSON).entity(Map.of("error", e.detail())).build();
            default -> {
                LOG.log(Level.SEVERE, "the request failed", e);
                yield Response.serverError().type(MediaType.APPLICATION_JSON)
                        .entity(Map.of("error", "the request failed; the server's log says why")).build();
            }
        };
    }

    static Response unavailable(Exception cause) {
        LOG.log(Level.WARNING, "answering 503: " + cause);
        return Response.status(Response.Status.SERVICE_UNAVAILABLE).header("Retry-After", RETRY_AFTER)
                .type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", "the database is out of reach; try again in " + RETRY_AFTER + " seconds"))
                .build();
    }
}
