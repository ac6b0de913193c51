package dev.inbox;

/** How a transactional delivery begins its transaction on SQLite. */
public enum SqliteMode {
    /** {@link #IMMEDIATE} for transactional deliveries. */
    DEFAULT,
    DEFERRED,
    IMMEDIATE,
    EXCLUSIVE
}
