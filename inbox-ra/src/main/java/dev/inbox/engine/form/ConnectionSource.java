package dev.inbox.engine.form;

import java.sql.Connection;
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
    default <R> R write(Transactions.Work<R> work) throws SQLException {
        return work.run();
    }

    /** Work on a connection. */
    @FunctionalInterface
    interface Work<R> {
        R run(Connection connection) throws SQLException;
    }
}
