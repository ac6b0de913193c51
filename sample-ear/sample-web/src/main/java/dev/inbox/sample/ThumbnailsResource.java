package dev.inbox.sample;

import dev.inbox.Publisher;
import dev.inbox.cdi.Queue;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** {@code POST /thumbnails} queues an image; {@code GET /thumbnails} lists the paths rendered. */
@Path("thumbnails")
public class ThumbnailsResource {

    @Inject
    @Queue("thumbnails")
    Publisher<Image> thumbnails;

    @Inject
    DataSource dataSource;

    /**
     * Queues the thumbnail in the request's JTA transaction: an upload refused after the publish
     * (not an image) rolls the transaction back, and with it the job.
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional
    public Response make(@Valid @NotNull Image image) {
        thumbnails.publish(image);
        if (!image.path().matches("(?i).+\\.(png|jpe?g|gif|webp)")) {
            // A map JSON-B writes: the path comes back escaped, and @Size keeps it short.
            throw new WebApplicationException(Response.status(422)
                    .entity(Map.of("error", "not an image", "path", image.path())).type(MediaType.APPLICATION_JSON)
                    .build());
        }
        return Response.accepted().build();
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<String> rendered() throws SQLException {
        return Rows.column(dataSource, "SELECT path FROM thumbnails_rendered ORDER BY path").stream()
                .map(String::valueOf).toList();
    }
}
