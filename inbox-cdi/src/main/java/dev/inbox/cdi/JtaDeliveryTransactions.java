package dev.inbox.cdi;

import dev.inbox.InboxSpec;
import dev.inbox.spi.DeliveryTransactions;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * A transactional delivery in one JTA transaction: the engine settles through a connection of the
 * application's JTA data source enlisted in it, and everything the handler writes through a JTA
 * data source joins it. The data source begins it as configured (SQLite: DEFERRED, so without the
 * write lock, which the engine then takes). With a single non-XA data source the server commits it in one phase. A
 * publisher's insert in the caller's JTA transaction wakes its queue once that commits. The
 * server's transaction objects are taken once, as the application starts: the adapter's threads
 * need no {@code java:comp} look-up.
 */
final class JtaDeliveryTransactions implements DeliveryTransactions {
    private final DataSource dataSource;
    private final UserTransaction userTransaction;
    private final TransactionSynchronizationRegistry registry;

    JtaDeliveryTransactions(DataSource dataSource, UserTransaction userTransaction,
            TransactionSynchronizationRegistry registry) {
        this.dataSource = dataSource;
        this.userTransaction = userTransaction;
        this.registry = registry;
    }

    @Override
    public Open begin(InboxSpec table) throws Exception {
        UserTransaction transaction = userTransaction;
        transaction.begin();
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException | RuntimeException e) {
            transaction.rollback();
            throw e;
        }
        return new Open() {
            @Override
            public Connection connection() {
                return connection;
            }

            @Override
            public void commit() throws Exception {
                close();
                transaction.commit();
            }

            @Override
            public void rollback() throws Exception {
                close();
                transaction.rollback();
            }

            @Override
            public void close() {
                try {
                    connection.close(); // the server keeps the enlisted connection until the transaction ends
                } catch (SQLException e) {
                    // already closed
                }
            }
        };
    }

    /** A JTA transaction ends on the thread that began it. */
    @Override
    public boolean boundToThread() {
        return true;
    }

    /** True inside a JTA transaction, even one marked for rollback: a write joins it all the same. */
    @Override
    public boolean callerInTransaction() {
        return registry.getTransactionStatus() != Status.STATUS_NO_TRANSACTION;
    }

    /** Runs {@code action} after the caller's JTA transaction commits, where one is active. */
    @Override
    public boolean afterCommit(Runnable action) {
        if (registry.getTransactionStatus() != Status.STATUS_ACTIVE) {
            return false;
        }
        registry.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                // nothing to do before the commit
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    action.run();
                }
            }
        });
        return true;
    }
}
