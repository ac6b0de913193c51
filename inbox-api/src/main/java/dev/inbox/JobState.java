package dev.inbox;

/**
 * Where an unfinished job of a queue stands, as its table shows it to any server, and the states
 * a {@link JobQuery} lists.
 */
public enum JobState {
    /** Due now: the next free worker of any server may claim it. */
    DUE,
    /**
     * Not due yet: published with a delay or a due time, waiting out a retry's back-off, or waiting
     * behind an earlier job of its FIFO group.
     */
    SCHEDULED,
    /**
     * Held by a delivery's lease (the lease form only). A lease table without a {@code retry_after}
     * column keeps a delayed job's due time in its lease, so such a job reads as in work until it is
     * due. The row lock and advisory forms hold their rows by locks no query sees: their jobs in
     * work read as {@link #DUE}.
     */
    IN_WORK,
    /**
     * As a filter: the jobs whose last attempt failed and that wait for another (their
     * {@link LastError} column holds why); a job's own state is never this.
     */
    FAILING,
    /** As a filter: every unfinished job; a job's own state is never this. */
    ALL
}
