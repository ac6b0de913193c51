package dev.inbox.sample;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** {@code GET /receipts}: the receipts mailed. */
@Path("receipts")
public class ReceiptsResource {

    @Inject
    DataSource dataSource;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<Map<String, Long>> mailed() throws SQLException {
        return Rows.column(dataSource, "SELECT order_id FROM receipts_mailed ORDER BY order_id").stream()
                .map(order -> Map.of("order", ((Number) order).longValue())).toList();
    }
}
