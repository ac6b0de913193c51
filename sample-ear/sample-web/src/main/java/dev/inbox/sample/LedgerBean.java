package dev.inbox.sample;

import dev.inbox.Delivery;
import dev.inbox.InboxListener;
import dev.inbox.Outcome;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Books each ledger job, as a message-driven bean on Inbox's resource adapter (the way JMS
 * listeners are written): {@code onJob} runs in the container's transaction (REQUIRED), so its
 * write and the job's ack commit together, once; a retry or an exception rolls the write back and
 * the job comes again. The activation config names the queue and its table; the server
 * configuration binds the bean to the adapter ({@code <activationSpec id="sample-app/sample-web/LedgerBean">}).
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "queue", propertyValue = "ledger"),
        @ActivationConfigProperty(propertyName = "table", propertyValue = "dev.inbox.sample.LedgerJob"),
        @ActivationConfigProperty(propertyName = "workers", propertyValue = "2"),
        // Rows a crash leaves claimed come back after 10 s; the keeper extends a lease while a booking runs.
        @ActivationConfigProperty(propertyName = "lease", propertyValue = "10s")})
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class LedgerBean implements InboxListener {
    private static final Jsonb JSON = JsonbBuilder.create();

    @Inject
    DataSource dataSource;

    @Override
    public Outcome onJob(String payload, Delivery delivery) throws SQLException {
        Booking booking = JSON.fromJson(payload, Booking.class);
        Rows.insert(dataSource, "INSERT INTO ledger (order_id, amount_cents) VALUES (?, ?)", booking.order(),
                booking.amountCents());
        boolean first = delivery.attempt() == 1;
        if (booking.crashFirst() && first) {
            throw new IllegalStateException("the ledger is closing its books; booking for order " + booking.order()
                    + " comes again");
        }
        return booking.failFirst() && first ? Outcome.retry() : Outcome.ack();
    }
}
