package dev.inbox.sample;

import dev.inbox.Delivery;
import dev.inbox.Inbound;
import dev.inbox.Outcome;
import dev.inbox.Publisher;
import dev.inbox.cdi.Queue;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Transactional: the refund's record, its receipt job and its ledger booking's job commit with the
 * refund's settlement, or not at all. The card processor takes the order as its idempotency key.
 */
@ApplicationScoped
public class Refunds {
    @Inject
    @Queue("receipts")
    Publisher<Receipt> receipts;

    /** Handled by the message-driven {@link LedgerBean}, not a handler method: the publisher names the table. */
    @Inject
    @Queue(value = "ledger", table = LedgerJob.class)
    Publisher<Booking> ledger;

    @Inject
    CardProcessor processor;

    /** The server's name, written beside each refund it records: servers on one database tell their work apart. */
    @Inject
    @ConfigProperty(name = "sample.node", defaultValue = "sample")
    String node;

    public Outcome issue(@Inbound(queue = "refunds", table = IssueRefund.class, transactional = true,
            maxAttempts = 5, deadLetter = "refund_dead") Refund refund, Delivery delivery) throws SQLException {
        try (PreparedStatement insert = delivery.connection()
                .prepareStatement("INSERT INTO refunds (order_id, amount_cents, node) VALUES (?, ?, ?)")) {
            insert.setLong(1, refund.order());
            insert.setLong(2, refund.amountCents());
            insert.setString(3, node);
            insert.executeUpdate();
        } catch (SQLException e) {
            if (!duplicateKey(e)) {
                throw e; // a lost connection, a timeout: this attempt fails, and the refund is tried again
            }
            // The same refund published twice: the primary key keeps it to one.
            return Outcome.drop("refund of order " + refund.order() + " not recorded: " + e.getMessage());
        }
        receipts.publish(new Receipt(refund.order()));
        ledger.publish(Booking.of(refund));
        if (!processor.refund(refund, delivery.attempt())) {
            return Outcome.retry(); // rolls the record and the receipt back first
        }
        return Outcome.ack();
    }

    /**
     * True for a duplicate key: SQLSTATE class 23 (integrity constraint violation), which SQLite's
     * driver, reporting no SQLSTATE, gives as its result code 19 (SQLITE_CONSTRAINT).
     */
    static boolean duplicateKey(SQLException e) {
        String state = e.getSQLState();
        return state != null ? state.startsWith("23") : e.getErrorCode() == 19;
    }
}
