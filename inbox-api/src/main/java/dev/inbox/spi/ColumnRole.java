package dev.inbox.spi;

/** What the engine keeps in a queue table's column, for the dialect's check of its type ({@link Dialect#columnProblem}). */
public enum ColumnRole {
    /** The lease's deadline, the token every ack and extension must find again exactly. */
    LEASE,
    /** Any other time: a due time, when a row was processed or published. */
    TIME,
    /** A whole number the engine counts or orders by: the attempt, the priority. */
    COUNTER,
    /** Text the engine writes, cut to the column's length: the last error. */
    TEXT
}
