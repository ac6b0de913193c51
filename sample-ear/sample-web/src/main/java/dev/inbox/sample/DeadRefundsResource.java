package dev.inbox.sample;

import dev.inbox.InboxAdmin;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The refunds that failed for good, for the application's own operators: {@code GET
 * /refunds/dead} lists them; {@code POST /refunds/dead/{id}/retry} with {@code {"reason": ...}}
 * puts one back into the queue and records why, in one JTA transaction. The database keeps the
 * reason {@code NOT NULL}: a retry without one fails at the record, and the letter's retry, made
 * through {@link InboxAdmin} in the same transaction, rolls back with it. Like the rest of the
 * sample's API it asks no one's name; an application gives such operations to its operators'
 * role only ({@code @RolesAllowed}), as Inbox's console does.
 */
@Path("refunds/dead")
public class DeadRefundsResource {

    /** One dead refund: its job id and why it failed. */
    public record Dead(long id, String error) {}

    /** Why an operator retries a dead refund. */
    public record RetryRequest(String reason) {}

    @Inject
    InboxAdmin admin;

    @Inject
    DataSource dataSource;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<Dead> list() {
        return admin.deadLetters("refunds", 100).stream()
                .map(letter -> new Dead(((Number) letter.id()).longValue(), letter.error())).toList();
    }

    @POST
    @Path("{id}/retry")
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional
    public Response retry(@PathParam("id") long id, RetryRequest request) {
        admin.retryDeadLetter("refunds", id);
        try (Connection connection = dataSource.getConnection();
                PreparedStatement record = connection.prepareStatement(
                        "INSERT INTO refund_retries (letter_id, reason) VALUES (?, ?)")) {
            record.setLong(1, id);
            record.setString(2, request == null ? null : request.reason());
            record.executeUpdate();
        } catch (SQLException e) {
            // Unchecked, so the transaction rolls back: the letter stays dead.
            throw new WebApplicationException(Response.status(422).type(MediaType.APPLICATION_JSON)
                    .entity(Map.of("error", "the retry was not recorded; give a reason")).build());
        }
        return Response.noContent().build();
    }
}
