package dev.inbox.jca;

import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * The application's data source as the engine borrows from it: a connection taken outside a JTA
 * transaction is in autocommit, as JDBC has it for a new connection. GlassFish's and Payara's pools
 * hand out connections still in the manual commit a transaction left them in (the
 * sample's non-transactional writes were seen uncommitted on them), where the engine's single
 * statements would stay uncommitted and, on SQLite, hold the database's lock.
 */
final class AutoCommitOnBorrow implements InvocationHandler {
    private final DataSource dataSource;
    private final TransactionSynchronizationRegistry registry;

    private AutoCommitOnBorrow(DataSource dataSource, TransactionSynchronizationRegistry registry) {
        this.dataSource = dataSource;
        this.registry = registry;
    }

    static DataSource of(DataSource dataSource, TransactionSynchronizationRegistry registry) {
        if (registry == null || Proxy.isProxyClass(dataSource.getClass())
                && Proxy.getInvocationHandler(dataSource) instanceof AutoCommitOnBorrow) {
            return dataSource;
        }
        return (DataSource) Proxy.newProxyInstance(AutoCommitOnBorrow.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, new AutoCommitOnBorrow(dataSource, registry));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        Object result;
        try {
            result = method.invoke(dataSource, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        if (result instanceof Connection connection && method.getName().equals("getConnection")
                && registry.getTransactionStatus() == Status.STATUS_NO_TRANSACTION && !connection.getAutoCommit()) {
            connection.setAutoCommit(true);
        }
        return result;
    }
}
