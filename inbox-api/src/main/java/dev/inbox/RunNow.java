package dev.inbox;

/** What asking a job to run now found. */
public enum RunNow {
    /**
     * It was scheduled (a delay, a due time, a retry's back-off) and is due now: the next free
     * worker takes it (in a FIFO group, after the jobs before it).
     */
    DUE_NOW,
    /**
     * It was due already (or waits behind an earlier job of its FIFO group, which runs first). In
     * the advisory form a job in work reads this way too: its lock is a session's, which no
     * statement of another session sees.
     */
    ALREADY_DUE,
    /**
     * A delivery's lease or row lock holds it (the lease and row lock forms): it is left to its
     * handler. In a lease table
     * without a {@code retry_after} column a delayed job reads this way too, since its delay is kept
     * in the lease.
     */
    IN_WORK,
    /** No such job in the queue: never published, handled already, dead-lettered, or cancelled. */
    NOT_FOUND
}
