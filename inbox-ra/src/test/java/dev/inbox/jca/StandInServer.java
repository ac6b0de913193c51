package dev.inbox.jca;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.InboxListener;
import jakarta.resource.spi.BootstrapContext;
import jakarta.resource.spi.UnavailableException;
import jakarta.resource.spi.XATerminator;
import jakarta.resource.spi.endpoint.MessageEndpoint;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import jakarta.resource.spi.work.ExecutionContext;
import jakarta.resource.spi.work.Work;
import jakarta.resource.spi.work.WorkContext;
import jakarta.resource.spi.work.WorkListener;
import jakarta.resource.spi.work.WorkManager;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Small stand-ins for what a server gives the adapter: a bootstrap context whose WorkManager runs
 * each Work on a thread of its own, an endpoint factory for one bean, and a container transaction
 * per delivery that {@code beforeDelivery} begins and {@code afterDelivery} ends, with a data
 * source whose connections join it, as a JTA data source's do. The database is a SQLite file.
 */
final class StandInServer implements AutoCloseable {
    final HikariDataSource pool;
    /** Work the WorkManager started. */
    final AtomicInteger workStarted = new AtomicInteger();
    /** Work submitted and not yet ended. */
    final Set<Work> running = ConcurrentHashMap.newKeySet();
    /** What happened to each endpoint, in order: "before", "onJob", "after", "release". */
    final List<List<String>> endpoints = new CopyOnWriteArrayList<>();
    private final ThreadLocal<Connection> transaction = new ThreadLocal<>();
    private final ThreadLocal<Boolean> rollbackOnly = new ThreadLocal<>();

    StandInServer() throws Exception {
        Path file = Files.createTempDirectory("inbox-ra-test").resolve("inbox.db");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:sqlite:" + file);
        config.setMaximumPoolSize(8);
        config.setConnectionInitSql("PRAGMA busy_timeout = 10000");
        pool = new HikariDataSource(config);
        try (Connection c = pool.getConnection(); var s = c.createStatement()) {
            s.execute("PRAGMA journal_mode = WAL");
            s.execute("CREATE TABLE bean_jobs (id INTEGER PRIMARY KEY, attempt INTEGER NOT NULL DEFAULT 1,"
                    + " locked_until TEXT, payload BLOB NOT NULL)");
            s.execute("CREATE TABLE bean_effects (job INTEGER NOT NULL, attempt INTEGER NOT NULL)");
        }
    }

    @Override
    public void close() {
        pool.close();
    }

    /** An adapter started on this server with a 1 s drain timeout, every data source it looks up this one. */
    InboxResourceAdapter startAdapter() throws jakarta.resource.spi.ResourceAdapterInternalException {
        InboxResourceAdapter adapter = new InboxResourceAdapter();
        adapter.setDrainTimeout("1s");
        adapter.dataSources(name -> dataSource());
        adapter.start(bootstrap());
        return adapter;
    }

    /** The rows of a table, or of {@code "table WHERE condition"}. */
    long count(String rows) {
        try (Connection c = pool.getConnection(); var s = c.createStatement();
                var rs = s.executeQuery("SELECT COUNT(*) FROM " + rows)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    BootstrapContext bootstrap() {
        WorkManager work = new WorkManager() {
            @Override
            public void doWork(Work w) {
                w.run();
            }

            @Override
            public void doWork(Work w, long timeout, ExecutionContext ctx, WorkListener l) {
                w.run();
            }

            @Override
            public long startWork(Work w) {
                scheduleWork(w);
                return 0;
            }

            @Override
            public long startWork(Work w, long timeout, ExecutionContext ctx, WorkListener l) {
                scheduleWork(w);
                return 0;
            }

            @Override
            public void scheduleWork(Work w) {
                workStarted.incrementAndGet();
                running.add(w); // counted from its submission, as a server's quiesce counts it
                Thread thread = new Thread(() -> {
                    try {
                        w.run();
                    } finally {
                        running.remove(w);
                    }
                });
                thread.setDaemon(true);
                thread.start();
            }

            @Override
            public void scheduleWork(Work w, long timeout, ExecutionContext ctx, WorkListener l) {
                scheduleWork(w);
            }
        };
        return new BootstrapContext() {
            @Override
            public WorkManager getWorkManager() {
                return work;
            }

            @Override
            public XATerminator getXATerminator() {
                return null;
            }

            @Override
            public Timer createTimer() throws UnavailableException {
                return new Timer(true);
            }

            @Override
            public boolean isContextSupported(Class<? extends WorkContext> context) {
                return false;
            }

            @Override
            public TransactionSynchronizationRegistry getTransactionSynchronizationRegistry() {
                return registry();
            }
        };
    }

    /** The container's data source: inside a delivery's transaction, its connection (closing it does not end it). */
    DataSource dataSource() {
        return new DataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                Connection joined = transaction.get();
                return joined == null ? pool.getConnection() : unclosable(joined);
            }

            @Override
            public Connection getConnection(String user, String password) throws SQLException {
                return getConnection();
            }

            @Override
            public PrintWriter getLogWriter() {
                return null;
            }

            @Override
            public void setLogWriter(PrintWriter out) {}

            @Override
            public void setLoginTimeout(int seconds) {}

            @Override
            public int getLoginTimeout() {
                return 0;
            }

            @Override
            public Logger getParentLogger() {
                return Logger.getGlobal();
            }

            @Override
            public <T> T unwrap(Class<T> iface) throws SQLException {
                throw new SQLException("not a wrapper");
            }

            @Override
            public boolean isWrapperFor(Class<?> iface) {
                return false;
            }
        };
    }

    private static Connection unclosable(Connection connection) {
        return (Connection) Proxy.newProxyInstance(StandInServer.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private TransactionSynchronizationRegistry registry() {
        return new TransactionSynchronizationRegistry() {
            @Override
            public int getTransactionStatus() {
                if (transaction.get() == null) {
                    return Status.STATUS_NO_TRANSACTION;
                }
                return Boolean.TRUE.equals(rollbackOnly.get()) ? Status.STATUS_MARKED_ROLLBACK : Status.STATUS_ACTIVE;
            }

            @Override
            public void setRollbackOnly() {
                rollbackOnly.set(true);
            }

            @Override
            public boolean getRollbackOnly() {
                return Boolean.TRUE.equals(rollbackOnly.get());
            }

            @Override
            public Object getTransactionKey() {
                return transaction.get();
            }

            @Override
            public void putResource(Object key, Object value) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Object getResource(Object key) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void registerInterposedSynchronization(Synchronization sync) {
                throw new UnsupportedOperationException();
            }
        };
    }

    /**
     * The factory of one bean: {@code listener} handles each job; a transacted bean's onJob runs in
     * the container's transaction.
     */
    MessageEndpointFactory bean(InboxListener listener, boolean transacted) {
        return new MessageEndpointFactory() {
            @Override
            public MessageEndpoint createEndpoint(javax.transaction.xa.XAResource xa) {
                List<String> events = new CopyOnWriteArrayList<>();
                endpoints.add(events);
                return (MessageEndpoint) Proxy.newProxyInstance(StandInServer.class.getClassLoader(),
                        new Class<?>[] {MessageEndpoint.class, InboxListener.class}, (proxy, method, args) -> {
                            switch (method.getName()) {
                                case "beforeDelivery" -> {
                                    events.add("before");
                                    if (transacted) {
                                        Connection connection = pool.getConnection();
                                        connection.setAutoCommit(false);
                                        transaction.set(connection);
                                        rollbackOnly.remove();
                                    }
                                    return null;
                                }
                                case "afterDelivery" -> {
                                    events.add("after");
                                    Connection connection = transaction.get();
                                    if (connection != null) {
                                        transaction.remove();
                                        try (connection) {
                                            if (Boolean.TRUE.equals(rollbackOnly.get())) {
                                                connection.rollback();
                                            } else {
                                                connection.commit();
                                            }
                                        } finally {
                                            rollbackOnly.remove();
                                        }
                                    }
                                    return null;
                                }
                                case "release" -> {
                                    events.add("release");
                                    return null;
                                }
                                case "onJob" -> {
                                    events.add("onJob");
                                    try {
                                        return listener.onJob((String) args[0], (dev.inbox.Delivery) args[1]);
                                    } catch (Exception e) {
                                        if (transacted) {
                                            rollbackOnly.set(true); // a system exception, as a container does
                                        }
                                        throw e;
                                    }
                                }
                                default -> throw new UnsupportedOperationException(method.getName());
                            }
                        });
            }

            @Override
            public MessageEndpoint createEndpoint(javax.transaction.xa.XAResource xa, long timeout) {
                return createEndpoint(xa);
            }

            @Override
            public boolean isDeliveryTransacted(Method method) {
                return transacted;
            }

            @Override
            public String getActivationName() {
                return "test-bean";
            }

            @Override
            public Class<?> getEndpointClass() {
                return StandInServer.class;
            }
        };
    }
}
