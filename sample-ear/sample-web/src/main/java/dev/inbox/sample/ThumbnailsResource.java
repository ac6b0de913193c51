package dev.inbox.sample;

import dev.inbox.Publisher;
import dev.inbox.cdi.Queue;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
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

/** {@code POST /thumbnails} queues an image; {@code GET /thumbnails} lists the paths rendered. */
@Path("thumbnails")
public class ThumbnailsResource {

    @Inject
    @Queue("thumbnails")
    Publisher<Image> thumbnails;

    @Resource(lookup = "jdbc/inbox")
    DataSource dataSource;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response make(Image image) {
        thumbnails.publish(image);
        return Response.accepted().build();
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<String> rendered() throws SQLException {
        return Rows.column(dataSource, "SELECT path FROM thumbnails_rendered ORDER BY path").stream()
                .map(String::valueOf).toList();
    }
}
