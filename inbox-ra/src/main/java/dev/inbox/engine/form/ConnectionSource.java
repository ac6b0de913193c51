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

    /** Work on a connection. */
    @FunctionalInterface
    interface Work<R> {
        R run(Connection connection) throws SQLException;
    }
}
