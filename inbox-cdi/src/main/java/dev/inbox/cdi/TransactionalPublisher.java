package dev.inbox.cdi;

import dev.inbox.PublishOptions;
import dev.inbox.Publisher;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.util.Collection;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * A publisher whose insert joins the caller's JTA transaction (the broker's data source is a JTA
 * data source) and wakes the queue's subscriptions once that transaction commits; a rolled-back
 * transaction publishes nothing. Without a transaction it inserts and wakes at once.
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

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public void publish(T payload, PublishOptions options) {
        startup.broker().publisher(queue, type).publish(payload, options);
        wakeAfterCommit();
    }

    @Override
    public void publishAll(Collection<? extends T> payloads, PublishOptions options) {
        startup.broker().publisher(queue, type).publishAll(payloads, options);
        wakeAfterCommit();
    }

    @Override
    public void publish(Connection connection, T payload, PublishOptions options) {
        startup.broker().publisher(queue, type).publish(connection, payload, options);
    }

    @Override
    public void publishAll(Connection connection, Collection<? extends T> payloads, PublishOptions options) {
        startup.broker().publisher(queue, type).publishAll(connection, payloads, options);
    }

    /** Inside a JTA transaction the rows are visible once it commits: wake the queue then. */
    private void wakeAfterCommit() {
        var broker = startup.broker();
        TransactionSynchronizationRegistry registry = registry();
        if (registry != null && registry.getTransactionStatus() == Status.STATUS_ACTIVE) {
            registry.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    // nothing to do before the commit
                }

                @Override
                public void afterCompletion(int status) {
                    if (status == Status.STATUS_COMMITTED) {
                        broker.wake(queue);
                    }
                }
            });
        }
    }

    private static TransactionSynchronizationRegistry registry() {
        try {
            return (TransactionSynchronizationRegistry) new InitialContext()
                    .lookup("java:comp/TransactionSynchronizationRegistry");
        } catch (NamingException e) {
            return null;
        }
    }
}
