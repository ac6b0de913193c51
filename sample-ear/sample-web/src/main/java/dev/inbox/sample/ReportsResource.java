package dev.inbox.sample;

import dev.inbox.Publisher;
import dev.inbox.cdi.Queue;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/** {@code POST /reports} queues a report; {@code GET /reports} lists the reports rendered. */
@Path("reports")
public class ReportsResource {

    @Inject
    @Queue("reports")
    Publisher<Report> reports;

    @Inject
    DataSource dataSource;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response render(@Valid @NotNull Report report) {
        reports.publish(report);
        return Response.accepted().build();
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<String> rendered() throws SQLException {
        return Rows.column(dataSource, "SELECT name FROM reports_rendered ORDER BY name").stream()
                .map(String::valueOf).toList();
    }
}
