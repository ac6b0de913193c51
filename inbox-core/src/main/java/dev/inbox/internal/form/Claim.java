package dev.inbox.internal.form;

import dev.inbox.Outcome;
import dev.inbox.spi.DeliveryTransactions;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * What keeps claimed rows from other workers until they settle, as one claim form does it: a
 * lease (nothing held), the claim's open transaction (row lock form) or the session holding the
 * rows' locks (advisory lock form). Every delivery knows its claim; settling goes through it.
 */
public interface Claim {

    /**
     * Acks {@code delivery} outside a delivery transaction; the caller has marked it settled. The
     * ack is written now or together with others, and reported through the form's {@link Reports}
     * once written.
     */
    void ack(InFlight delivery, Instant now);

    /**
     * Settles {@code delivery} with a retry or a drop at {@code now}; the caller holds its monitor.
     * Where the database refuses the settlement, it fails alone: the claim's other rows are kept,
     * this row's attempt stays counted, and the row is put off by {@code ifRefused} where the form
     * can delay it (a retry's due time), so that it does not come straight back to fail again.
     *
     * @throws SQLException             the refusal, once the row is put off
     * @throws dev.inbox.InboxException {@code LEASE_LOST} when another claim holds the row now,
     *                                  {@code CLOSED} when shutdown released it
     */
    void settle(InFlight delivery, Outcome outcome, Instant now, Duration ifRefused) throws SQLException;

    /**
     * Moves the row into the dead-letter table, recording {@code error} and, where the table keeps
     * one, {@code lastError} (null for the row's own), in one transaction; the
     * caller holds the delivery's monitor. A refused move fails alone, as a refused
     * {@link #settle} does, and puts the row off by {@code ifRefused}.
     *
     * @throws dev.inbox.InboxException {@code LEASE_LOST} when another claim holds the row now
     */
    void deadLetter(InFlight delivery, String error, String lastError, Instant now, Duration ifRefused) throws SQLException;

    /**
     * Gives the row back for another claim at once; false when it was no longer held.
     *
     * @param started true when a handler had the delivery (its attempt is spent); false for a row
     *                claimed ahead and never handed to one, which goes back with its attempt unspent
     *                where the form can take it back
     */
    boolean release(InFlight delivery, boolean started) throws SQLException;

    /**
     * Opens the transaction a transactional delivery's handler writes in: the claim's own (row
     * lock form), or one {@code transactions} begins.
     */
    HandlerTransaction begin(InFlight delivery, DeliveryTransactions transactions) throws Exception;

    /**
     * True where a row whose handler outran the handler timeout may settle while that handler still
     * runs, as a failed attempt: the handler writes nowhere the settlement ends. Elsewhere the row
     * stays claimed until the handler returns (its lease, where it has one, runs out).
     */
    default boolean settlesBesideItsHandler() {
        return false;
    }

    /** True when the row may no longer be handed to a handler: its lease ran out while it waited. */
    default boolean expired(InFlight delivery, Instant now) {
        return false;
    }
}
