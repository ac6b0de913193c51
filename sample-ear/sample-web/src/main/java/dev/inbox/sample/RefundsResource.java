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

/** {@code POST /refunds} queues a refund; {@code GET /refunds} lists the refunds recorded. */
@Path("refunds")
public class RefundsResource {

    /** A refund recorded. */
    @JsonbPropertyOrder({"order", "amountCents"})
    public record Recorded(long order, long amountCents) {}

    @Inject
    @Queue("refunds")
    Publisher<Refund> refunds;

    @Inject
    DataSource dataSource;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response issue(@Valid @NotNull RefundRequest request) {
        refunds.publish(request.refund());
        return Response.accepted().build();
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<Recorded> recorded() throws SQLException {
        List<Recorded> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT order_id, amount_cents FROM refunds ORDER BY order_id")) {
            while (rs.next()) {
                out.add(new Recorded(rs.getLong(1), rs.getLong(2)));
            }
        }
        return out;
    }
}
