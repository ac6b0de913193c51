package dev.inbox.sample.it.forms;

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

/**
 * A message-driven bean on Inbox's inbound contract: a transacted onJob whose writes through the
 * injected data source commit with its job's ack in the container's transaction.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "queue", propertyValue = "it-mdb"),
        @ActivationConfigProperty(propertyName = "table", propertyValue = "dev.inbox.sample.it.forms.MdbEntry"),
        @ActivationConfigProperty(propertyName = "workers", propertyValue = "2"),
        @ActivationConfigProperty(propertyName = "pollInterval", propertyValue = "200ms")})
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class LedgerBean implements InboxListener {
    private static final Jsonb JSON = JsonbBuilder.create();

    @Inject
    Effects effects;

    @Override
    public Outcome onJob(String payload, Delivery delivery) throws Exception {
        return effects.record("mdb", JSON.fromJson(payload, Entry.class), delivery);
    }
}
