package com.example.thumbnails;

// tag::publisher[]
import dev.inbox.Publisher;
import dev.inbox.cdi.Queue;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

@Path("thumbnails")
public class ThumbnailRequests {
    @Inject
    @Queue("thumbnails")
    Publisher<Image> thumbnails;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response request(Image image) {
        thumbnails.publish(image);               // an INSERT; inside a JTA transaction it joins it
        return Response.accepted().build();
    }
}
// end::publisher[]
