package dev.inbox.engine.form;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Where a form takes connections: the broker's pool, or the one connection of a delivery's
 * transaction. A lease claim or settlement borrows one for a statement; a row lock or advisory
 * claim keeps its connection until its deliveries settle.
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

    /** True when this source lends the connection of a delivery's transaction. */
    default boolean lendsTransaction() {
        return false;
    }

    /** Work on a connection. */
    @FunctionalInterface
    interface Work<R> {
        R run(Connection connection) throws SQLException;
    }

    /** The one connection of a delivery's transaction: used, never closed. */
    static ConnectionSource fixed(Connection connection) {
        return new ConnectionSource() {
            @Override
            public Connection open() {
                throw new IllegalStateException("a delivery's transaction lends its connection, it opens none");
            }

            @Override
            public <R> R use(Work<R> work) throws SQLException {
                return work.run(connection);
            }

            @Override
            public boolean lendsTransaction() {
                return true;
            }
        };
    }
}
