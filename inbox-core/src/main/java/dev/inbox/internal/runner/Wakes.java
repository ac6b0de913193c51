package dev.inbox.internal.runner;

import dev.inbox.spi.DeliveryTransactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Wakes a queue's local subscription once rows written to its table are visible: at once for a
 * write that committed on its own; when the delivery transaction it joined commits; when the
 * caller's JTA transaction commits. The one way every publisher and delivery wakes a queue. A
 * queue with no local subscription is handed to {@code elsewhere}: another broker of the process
 * may take it.
 */
public final class Wakes {
    private final Map<String, Runnable> subscriptions = new ConcurrentHashMap<>();
    private final DeliveryTransactions transactions;
    private final Consumer<String> elsewhere;

    public Wakes(DeliveryTransactions transactions, Consumer<String> elsewhere) {
        this.transactions = transactions;
        this.elsewhere = elsewhere;
    }

    /** {@code wake} runs when rows of {@code queue} become visible. */
    public void register(String queue, Runnable wake) {
        subscriptions.put(queue, wake);
    }

    /** Rows of {@code queue} are visible: wakes its local subscription, else tells {@code elsewhere}. */
    public void wake(String queue) {
        if (!wakeLocal(queue)) {
            elsewhere.accept(queue);
        }
    }

    /** Wakes the local subscription of {@code queue}; false when there is none. */
    public boolean wakeLocal(String queue) {
        Runnable wake = subscriptions.get(queue);
        if (wake != null) {
            wake.run();
        }
        return wake != null;
    }

    /**
     * Rows of {@code queue} were just written through {@code connection}: wakes its subscription
     * once they are visible, after the caller's JTA transaction where there is one (Open Liberty
     * reports autocommit on inside it: woken at once, the claim found nothing and the rows waited
     * for the next poll). Inside a transaction of the caller's own JDBC connection nothing can tell
     * when it commits, and the subscription finds the rows when it next polls.
     */
    public void written(String queue, Connection connection) throws SQLException {
        CurrentDelivery delivery = CurrentDelivery.current();
        if (delivery != null && delivery.connection() == connection) {
            delivery.published(queue);
        } else if (!transactions.afterCommit(() -> wake(queue)) && connection.getAutoCommit()) {
            wake(queue);
        }
    }
}
