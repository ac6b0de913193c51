package dev.inbox.sample;

import jakarta.json.bind.JsonbException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;

/** A request body that is not the JSON an endpoint takes is the client's mistake: 400, not 500. */
@Provider
public class MalformedJson implements ExceptionMapper<JsonbException> {

    @Override
    public Response toResponse(JsonbException e) {
        return answer(e);
    }

    /** 400 for a body JSON-B could not read, or the answer of the limit that stopped it being read. */
    static Response answer(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof WebApplicationException stopped) {
                return stopped.getResponse(); // the body passed its limit while it was read
            }
        }
        return Response.status(Response.Status.BAD_REQUEST).type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", "the request body is not valid JSON for this endpoint")).build();
    }
}
