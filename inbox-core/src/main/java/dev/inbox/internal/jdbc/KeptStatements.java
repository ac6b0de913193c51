package dev.inbox.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The statements of the hot path (claims, advisory scans, acks) kept prepared on each physical
 * connection of a pool the broker built. HikariCP keeps no statements and SQLite's driver keeps
 * none either, so each claim compiled its statement again (about a fifth of a SQLite claim's
 * time, spent holding the database's one write lock). An application server's pool keeps its own
 * statement cache, so the application's DataSource gets none here.
 *
 * <p>A statement is prepared on the physical connection, where the pool does not track it: the
 * pool would close a statement of its proxy when the connection goes back. The pool does not see
 * these statements run either, so it would not roll back a transaction they left open: the
 * engine ends its own ({@code JdbcTransaction.run}, {@code JdbcTransaction}). A physical connection
 * serves one borrower at a time, and a statement is taken out while in use, so a second use of the
 * same statement at once prepares one of its own. Connections the pool closed are forgotten when
 * another connection comes in.
 */
public final class KeptStatements {
    /**
     * By identity, guarded by itself: a connection the pool closed under its borrower (its database
     * session ended) is a stand-in whose every method but a few throws, {@code hashCode} included.
     */
    private final Map<Connection, Map<Sql, PreparedStatement>> byConnection = new IdentityHashMap<>();

    public <R> R run(Connection pooled, Sql sql, ConnectionSource.OnStatement<R> work) throws SQLException {
        Connection physical = pooled.unwrap(Connection.class);
        if (physical.isClosed()) {
            return ConnectionSource.preparedOnce(pooled, sql, work); // which fails, naming the closed connection
        }
        Map<Sql, PreparedStatement> kept;
        synchronized (byConnection) {
            kept = byConnection.get(physical);
            if (kept == null) {
                forgetClosed();
                kept = new ConcurrentHashMap<>();
                byConnection.put(physical, kept);
            }
        }
        PreparedStatement statement = kept.remove(sql);
        if (statement == null || statement.isClosed()) {
            statement = physical.prepareStatement(sql.jdbc());
        }
        boolean reusable = false;
        try {
            R result = work.run(statement);
            // No binding or batch left over for the next use.
            statement.clearParameters();
            statement.clearBatch();
            reusable = true;
            return result;
        } finally {
            if (!reusable || kept.putIfAbsent(sql, statement) != null) {
                closeQuietly(statement); // after a failure its state is unknown; or another use kept one meanwhile
            }
        }
    }

    /** Forgets every statement, for a pool that is closing (it closes the connections, and they their statements). */
    void clear() {
        synchronized (byConnection) {
            byConnection.clear();
        }
    }

    /** The physical connections with statements kept, for tests. */
    public int connections() {
        synchronized (byConnection) {
            return byConnection.size();
        }
    }

    private void forgetClosed() {
        byConnection.keySet().removeIf(connection -> {
            try {
                return connection.isClosed();
            } catch (SQLException e) {
                return true;
            }
        });
    }

    private static void closeQuietly(PreparedStatement statement) {
        try {
            statement.close();
        } catch (SQLException e) {
            // its connection is broken: the pool discards it
        }
    }
}
