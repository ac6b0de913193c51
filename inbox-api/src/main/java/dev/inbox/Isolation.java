package dev.inbox;

import java.sql.Connection;

/** Transaction isolation of a table's claims and transactional deliveries on a server database. */
public enum Isolation {
    /** The database's own default (READ COMMITTED is used for claims on MySQL and MariaDB). */
    DEFAULT(-1),
    READ_COMMITTED(Connection.TRANSACTION_READ_COMMITTED),
    REPEATABLE_READ(Connection.TRANSACTION_REPEATABLE_READ),
    SERIALIZABLE(Connection.TRANSACTION_SERIALIZABLE);

    private final int jdbcLevel;

    Isolation(int jdbcLevel) {
        this.jdbcLevel = jdbcLevel;
    }

    /** The {@link Connection} constant, or -1 for {@link #DEFAULT}. */
    public int jdbcLevel() {
        return jdbcLevel;
    }
}
