package dev.inbox.engine;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A real pool that stops giving connections to some of a broker's threads for a while, as an
 * outage seen by one part of the engine would: the threads whose name ends with {@code suffix}
 * (the lease keeper's "-keeper", say) are refused the next {@code times} connections they ask
 * for. Every request of those threads is recorded with its time.
 */
final class OutageDataSource implements DataSource {
    private final DataSource pool;
    private final String suffix;
    private final AtomicInteger refusals = new AtomicInteger();
    private final List<Long> requests = new CopyOnWriteArrayList<>();

    OutageDataSource(DataSource pool, String suffix) {
        this.pool = pool;
        this.suffix = suffix;
    }

    /** Refuses the next {@code times} requests of the threads (Integer.MAX_VALUE: until told otherwise). */
    OutageDataSource refuse(int times) {
        refusals.set(times);
        return this;
    }

    /** The nanoTime of every request the threads made, refused or not. */
    List<Long> requests() {
        return requests;
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (Thread.currentThread().getName().endsWith(suffix)) {
            requests.add(System.nanoTime());
            if (refusals.getAndUpdate(n -> n > 0 && n != Integer.MAX_VALUE ? n - 1 : n) > 0) {
                throw new SQLException("connection refused for the test's outage of " + suffix, "08001");
            }
        }
        return pool.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return pool.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return pool.isWrapperFor(iface);
    }
}
