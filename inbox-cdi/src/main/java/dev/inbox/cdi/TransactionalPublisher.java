package dev.inbox.cdi;

import dev.inbox.PublishOptions;
import dev.inbox.Published;
import dev.inbox.Publisher;
import java.sql.Connection;
import java.util.Collection;
import java.util.List;

/**
 * The publisher CDI injects: the application's broker's publisher for the queue. Its insert joins
 * the caller's JTA transaction (the broker's data source is a JTA data source), so a rolled-back
 * transaction publishes nothing, and the queue wakes once that transaction commits (the broker
 * learns it from {@link JtaDeliveryTransactions#afterCommit}). Without a transaction it inserts
 * and wakes at once.
 */
final class TransactionalPublisher<T> implements Publisher<T> {
    private final InboxStartup startup;
    private final String queue;
    private final Class<T> type;

    TransactionalPublisher(InboxStartup startup, String queue, Class<T> type) {
        this.startup = startup;
        this.queue = queue;
        this.type = type;
    }

    /** The broker's publisher, taken when needed: the application's broker starts after injection. */
    private Publisher<T> publisher() {
        return startup.broker().publisher(queue, type);
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public Published publish(T payload, PublishOptions options) {
        return publisher().publish(payload, options);
    }

    @Override
    public List<Published> publishAll(Collection<? extends T> payloads, PublishOptions options) {
        return publisher().publishAll(payloads, options);
    }

    @Override
    public Published publish(Connection connection, T payload, PublishOptions options) {
        return publisher().publish(connection, payload, options);
    }

    @Override
    public List<Published> publishAll(Connection connection, Collection<? extends T> payloads,
            PublishOptions options) {
        return publisher().publishAll(connection, payloads, options);
    }
}
