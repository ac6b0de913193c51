package dev.inbox;

/** Whose clock a table's times are judged by. */
public enum QueueClock {
    /** The application host's clock; required by the lease form, whose expiry is computed on the host. */
    HOST,
    /** The database server's clock ({@code statement_timestamp()} on PostgreSQL). */
    DATABASE
}
