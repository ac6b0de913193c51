package dev.inbox;

/**
 * The one error type of Inbox. Its {@link Kind} says what went wrong; its message names what to
 * change (queue, table, column, statement, version found and needed). It never carries a password.
 */
public class InboxException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Kind {
        /** A database URL the driver cannot read. */
        URL,
        /** The database is out of reach. */
        CONNECT,
        /** No dialect serves the database reached. */
        BACKEND,
        /** The description of a table or subscription is wrong. */
        DECLARATION,
        /** The database lacks a table or column a statement needs. */
        SCHEMA,
        /** The database server is older than the dialect's floor. */
        SERVER_TOO_OLD,
        /** The dialect cannot serve this combination on this database. */
        DIALECT,
        /** A late settlement: another claim holds the row now. */
        LEASE_LOST,
        /** The broker has shut down. */
        CLOSED,
        /** On SQLite, a publish that would wait forever for the write lock its own delivery holds. */
        WRITE_LOCK_HELD,
        /** A statement failed while the broker ran (claim, settlement, publish). */
        DATABASE,
        /**
         * A broker method called at a point of its life where it cannot run: configuration or a
         * subscription after {@code connect()}, {@code connect()} twice, publishing before it.
         */
        LIFECYCLE,
        /** An operator's action names a queue, a dead letter or a row that is not there (or no longer). */
        NOT_FOUND
    }

    private final Kind kind;

    public InboxException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public InboxException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    /** The message without the kind in front. */
    public String detail() {
        return super.getMessage();
    }

    @Override
    public String getMessage() {
        return kind + ": " + super.getMessage();
    }
}
