package dev.inbox.sample;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Which database the sample runs on: {@code {"db": "<product name>"}} once {@code jdbc/inbox} runs a
 * statement. Whether Inbox is healthy is MicroProfile Health's to say ({@code /health/ready}, the
 * checks inbox-cdi adds).
 */
@Path("database")
public class DatabaseResource {

    @Inject
    DataSource dataSource;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response database() {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("SELECT 1");
            return Response.ok(Map.of("db", connection.getMetaData().getDatabaseProductName())).build();
        } catch (SQLException e) {
            return Response.status(Response.Status.SERVICE_UNAVAILABLE)
                    .entity(Map.of("error", String.valueOf(e.getMessage())))
                    .build();
        }
    }
}
