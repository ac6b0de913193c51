package dev.inbox.sample;

import dev.inbox.Publisher;
import dev.inbox.cdi.Queue;
import jakarta.inject.Inject;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** {@code POST /ledger} queues a booking by hand; {@code GET /ledger} lists the bookings, in order. */
@Path("ledger")
public class LedgerResource {

    /** A booking made. */
    @JsonbPropertyOrder({"order", "amountCents"})
    public record Booked(long order, long amountCents) {}

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
    public List<Booked> booked() throws SQLException {
        List<Booked> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT order_id, amount_cents FROM ledger ORDER BY order_id, amount_cents")) {
            while (rs.next()) {
                out.add(new Booked(rs.getLong(1), rs.getLong(2)));
            }
        }
        return out;
    }
}
