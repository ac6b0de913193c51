package dev.inbox.sample;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.sql.SQLException;

/** A query of the sample's own tables that fails: the database is out of reach, 503 with {@code Retry-After}. */
@Provider
public class DatabaseReadFailed implements ExceptionMapper<SQLException> {

    @Override
    public Response toResponse(SQLException e) {
        return DatabaseOutage.unavailable(e);
    }
}
