package dev.inbox;

/**
 * How a claimed row is kept from other claims while its handler runs. The table's description
 * selects the form: a {@code locked_until} column the lease form, an {@code advisory_lock}
 * column the advisory lock form, neither the row lock form.
 */
public enum ClaimForm {
    /** The claim's transaction stays open holding the row ({@code FOR UPDATE SKIP LOCKED}). */
    ROW_LOCK,
    /** The claim writes an expiry, the ownership token, and commits; a keeper extends it. */
    LEASE,
    /** A lock on a 64-bit key of the row, released on settlement or when the session ends. */
    ADVISORY
}
