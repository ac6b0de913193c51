package dev.inbox.engine;

import java.sql.Connection;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The transaction of the transactional delivery running on this thread. A publish through the
 * same broker joins it (transactional enqueue) and wakes its queue once it commits; a publish that
 * would wait for the database's write lock it holds (SQLite) fails with {@code WRITE_LOCK_HELD}.
 */
final class DeliveryTransaction {
    private static final ThreadLocal<DeliveryTransaction> CURRENT = new ThreadLocal<>();

    private final InboxBroker broker;
    private final Connection connection;
    private final boolean locksDatabase;
    private final Set<String> published = new LinkedHashSet<>();

    private DeliveryTransaction(InboxBroker broker, Connection connection, boolean locksDatabase) {
        this.broker = broker;
        this.connection = connection;
        this.locksDatabase = locksDatabase;
    }

    static DeliveryTransaction open(InboxBroker broker, Connection connection, boolean locksDatabase) {
        DeliveryTransaction tx = new DeliveryTransaction(broker, connection, locksDatabase);
        CURRENT.set(tx);
        return tx;
    }

    /** The transaction on this thread, or null. */
    static DeliveryTransaction current() {
        return CURRENT.get();
    }

    InboxBroker broker() {
        return broker;
    }

    Connection connection() {
        return connection;
    }

    boolean locksDatabase() {
        return locksDatabase;
    }

    void published(String queue) {
        published.add(queue);
    }

    /** Leaves the thread; after a commit, wakes the queues published to inside it. */
    void close(boolean committed) {
        CURRENT.remove();
        if (committed) {
            published.forEach(broker::wake);
        }
    }
}
