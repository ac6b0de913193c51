package dev.inbox;

/** What a cancel of one job found. */
public enum Cancellation {
    /** The job was waiting (due or delayed) and is gone: no handler will take it. */
    CANCELLED,
    /**
     * A handler has the job now: it is not interrupted, and settles as its handler decides. Cancel
     * again once it has settled, if it comes back for a retry.
     */
    IN_WORK,
    /** No such job in the queue: never published, handled already, dead-lettered, or cancelled before. */
    NOT_FOUND
}
