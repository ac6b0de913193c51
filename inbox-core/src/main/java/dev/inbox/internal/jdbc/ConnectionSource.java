package dev.inbox.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Where a form takes connections: the broker's pool or the application's DataSource. A lease claim
 * or settlement borrows one for a statement; a row lock or advisory claim keeps its connection
 * until its deliveries settle.
 */
public interface ConnectionSource {

    /** A connection the caller closes. */
    Connection open() throws SQLException;

    /** Runs {@code work} on a connection and gives it back. */
    default <R> R use(Work<R> work) throws SQLException {
        try (Connection connection = open()) {
            return work.run(connection);
        }
    }

    /**
     * Runs a write a form makes on a connection it keeps (an advisory lock session counting
     * attempts or writing its acks): where the database takes one writer at a time, in turn with
     * the engine's other writers. Only the statements, never a whole session: sessions wait on
     * handlers.
     */
    default <R> R write(JdbcTransaction.Work<R> work) throws SQLException {
        return work.run();
    }

    /**
     * Runs {@code work} with {@code sql} prepared on {@code connection}, one of this source's, for a
     * statement of the hot path. Where the source keeps statements prepared it is kept for the
     * next use; otherwise it is prepared here and closed after. The work does not close it.
     */
    default <R> R prepared(Connection connection, Sql sql, OnStatement<R> work) throws SQLException {
        return preparedOnce(connection, sql, work);
    }

    /**
     * Runs {@code work} with {@code sql} prepared on {@code connection} by {@code source}, where the
     * connection is one of a source's; with {@code source} null (a delivery transaction's
     * connection), prepared for it alone.
     */
    static <R> R prepared(ConnectionSource source, Connection connection, Sql sql, OnStatement<R> work)
            throws SQLException {
        return source == null ? preparedOnce(connection, sql, work) : source.prepared(connection, sql, work);
    }

    /**
     * Runs {@code work} with {@code sql} prepared for it alone: on a connection of no source's, as a
     * delivery transaction's.
     */
    static <R> R preparedOnce(Connection connection, Sql sql, OnStatement<R> work) throws SQLException {
        try (PreparedStatement statement = sql.prepare(connection)) {
            return work.run(statement);
        }
    }

    /** Work on a prepared statement. */
    @FunctionalInterface
    interface OnStatement<R> {
        R run(PreparedStatement statement) throws SQLException;
    }

    /** Work on a connection. */
    @FunctionalInterface
    interface Work<R> {
        R run(Connection connection) throws SQLException;
    }
}
