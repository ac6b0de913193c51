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
import java.util.Map;
import javax.sql.DataSource;

/**
 * {@code POST /refunds} queues a refund and answers its job's id ({@code {"job": 17}}), which
 * {@code InboxAdmin.cancel} takes; {@code GET /refunds} lists the refunds recorded.
 */
@Path("refunds")
public class RefundsResource {

    @Inject
    @Queue("refunds")
    Publisher<Refund> refunds;

    @Inject
    DataSource dataSource;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response issue(@Valid @NotNull RefundRequest request) {
        return Response.accepted(Map.of("job", refunds.publish(request.refund()).id())).build();
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<OrderAmount> recorded() throws SQLException {
        return Rows.orderAmounts(dataSource, "SELECT order_id, amount_cents FROM refunds ORDER BY order_id");
    }
}
