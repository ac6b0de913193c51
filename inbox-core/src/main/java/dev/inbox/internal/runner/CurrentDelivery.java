package dev.inbox.internal.runner;

import dev.inbox.internal.jdbc.Database;
import java.sql.Connection;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The transactional delivery running on this thread. A publish to the same database joins its
 * transaction (transactional enqueue) and wakes its queue once it commits; a publish that
 * would wait for the database's write lock it holds (SQLite) fails with {@code WRITE_LOCK_HELD}.
 */
public final class CurrentDelivery {
    private static final ThreadLocal<CurrentDelivery> CURRENT = new ThreadLocal<>();

    private final Database database;
    private final Connection connection;
    private final boolean locksDatabase;
    private final Wakes wakes;
    private final Set<String> published = new LinkedHashSet<>();

    private CurrentDelivery(Database database, Connection connection, boolean locksDatabase, Wakes wakes) {
        this.database = database;
        this.connection = connection;
        this.locksDatabase = locksDatabase;
        this.wakes = wakes;
    }

    static CurrentDelivery open(Database database, Connection connection, boolean locksDatabase, Wakes wakes) {
        CurrentDelivery tx = new CurrentDelivery(database, connection, locksDatabase, wakes);
        CURRENT.set(tx);
        return tx;
    }

    /** The transaction on this thread, or null. */
    public static CurrentDelivery current() {
        return CURRENT.get();
    }

    /** The database of the broker whose delivery this is. */
    public Database database() {
        return database;
    }

    public Connection connection() {
        return connection;
    }

    public boolean locksDatabase() {
        return locksDatabase;
    }

    void published(String queue) {
        published.add(queue);
    }

    /** Leaves the thread; after a commit, wakes the queues published to inside it. */
    void close(boolean committed) {
        CURRENT.remove();
        if (committed) {
            published.forEach(wakes::wake);
        }
    }
}
