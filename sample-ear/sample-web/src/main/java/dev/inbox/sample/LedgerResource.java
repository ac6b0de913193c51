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

/** {@code POST /ledger} queues a booking by hand; {@code GET /ledger} lists the bookings, in order. */
@Path("ledger")
public class LedgerResource {

    @Inject
    @Queue(value = "ledger", table = LedgerJob.class)
    Publisher<Booking> ledger;

    @Inject
    DataSource dataSource;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response book(@Valid @NotNull BookingRequest request) {
        ledger.publish(request.booking());
        return Response.accepted().build();
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<OrderAmount> booked() throws SQLException {
        return Rows.orderAmounts(dataSource, "SELECT order_id, amount_cents FROM ledger ORDER BY order_id, amount_cents");
    }
}
