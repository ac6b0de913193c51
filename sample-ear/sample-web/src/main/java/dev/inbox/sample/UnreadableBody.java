package dev.inbox.sample;

import jakarta.json.bind.JsonbException;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;

/**
 * A body the server's REST runtime could not read. RESTEasy (WildFly) wraps JSON-B's error in a
 * {@link ProcessingException}, where Liberty passes it as it is ({@link MalformedJson}): malformed
 * JSON is 400 on both. Any other failure to read stays a server error.
 */
@Provider
public class UnreadableBody implements ExceptionMapper<ProcessingException> {

    @Override
    public Response toResponse(ProcessingException e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof JsonbException) {
                return MalformedJson.answer(e);
            }
        }
        return Response.serverError().type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", "the request could not be read")).build();
    }
}
