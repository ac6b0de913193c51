package dev.inbox.engine;

import dev.inbox.InboxSpec;
import dev.inbox.spi.DeliveryTransactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * Delivery transactions that behave as JTA's do where it matters to the engine: a transaction
 * belongs to the thread that began it, and only that thread may end it (another gets an
 * {@link IllegalStateException}, as from {@code UserTransaction}); one thread holds one at a time.
 * Each records the thread that began it and its connection, so tests can tell where a claim ran.
 */
final class ThreadBoundTransactions implements DeliveryTransactions {
    private final DataSource dataSource;
    private final ThreadLocal<Connection> current = new ThreadLocal<>();
    /** The connection of the transaction each thread has open now. */
    final Map<Thread, Connection> open = new ConcurrentHashMap<>();

    ThreadBoundTransactions(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public boolean boundToThread() {
        return true;
    }

    @Override
    public Open begin(InboxSpec table) throws SQLException {
        if (current.get() != null) {
            throw new IllegalStateException("this thread is in a transaction already");
        }
        Thread owner = Thread.currentThread();
        Connection connection = dataSource.getConnection();
        connection.setAutoCommit(false);
        current.set(connection);
        open.put(owner, connection);
        return new Open() {
            @Override
            public Connection connection() {
                return connection;
            }

            @Override
            public void commit() throws SQLException {
                ownedHere();
                try {
                    connection.commit();
                } finally {
                    ended();
                }
            }

            @Override
            public void rollback() throws SQLException {
                ownedHere();
                try {
                    connection.rollback();
                } finally {
                    ended();
                }
            }

            @Override
            public void close() {
                try {
                    if (!connection.isClosed() && current.get() == connection) {
                        connection.rollback(); // as a server does with a transaction left open
                        ended();
                    }
                    connection.close();
                } catch (SQLException e) {
                    // already closed
                }
            }

            private void ownedHere() {
                if (Thread.currentThread() != owner) {
                    throw new IllegalStateException("the transaction of " + owner.getName() + " ended on "
                            + Thread.currentThread().getName());
                }
            }

            private void ended() {
                current.remove();
                open.remove(owner, connection);
            }
        };
    }
}
