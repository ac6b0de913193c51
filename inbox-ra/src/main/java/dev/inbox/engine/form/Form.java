package dev.inbox.engine.form;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.engine.InFlight;
import dev.inbox.engine.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** One claim form: how rows are claimed, kept while their handlers run, settled and given back. */
public interface Form {

    /** Every statement of the form, prepared on the server when the subscription opens. */
    List<Sql> statements();

    /** Claims up to {@code limit} due rows at {@code now}. */
    List<InFlight> claim(ConnectionSource connections, Instant now, int limit) throws SQLException;

    /**
     * Settles {@code delivery} with {@code outcome} at {@code now}; the caller holds the delivery's monitor.
     *
     * @throws dev.inbox.InboxException {@code LEASE_LOST} when another claim holds the row now
     */
    void settle(ConnectionSource connections, InFlight delivery, Outcome outcome, Instant now) throws SQLException;

    /**
     * Moves the row into the dead-letter table, recording {@code error}, in one transaction; the
     * caller holds the delivery's monitor.
     *
     * @throws dev.inbox.InboxException {@code LEASE_LOST} when another claim holds the row now
     */
    void deadLetter(ConnectionSource connections, InFlight delivery, String error, Instant now) throws SQLException;

    /**
     * Gives the row back for another claim at once; false when it was no longer held.
     *
     * @param started true when a handler had the delivery (its attempt is spent); false for a row
     *                claimed ahead and never handed to one, which goes back with its attempt unspent
     *                where the form can take it back
     */
    boolean release(ConnectionSource connections, InFlight delivery, boolean started) throws SQLException;

    /** Moves the delivery's lease on at {@code now}; false when the row is no longer held. Lease form only. */
    default boolean extend(Connection connection, InFlight delivery, Instant now) throws SQLException {
        return true;
    }

    /**
     * The delivery's own transaction, in which it settled, has committed: releases what the form
     * still held for it until then (the advisory lock form's lock).
     */
    default void committed(InFlight delivery) throws SQLException {}

    /**
     * The connection of the claim's own transaction, when a transactional delivery's writes go
     * into it (row lock form); null when the delivery opens a transaction of its own.
     */
    default Connection transactionOf(InFlight delivery) {
        return null;
    }

    /**
     * Shutdown, advisory lock form: releases the lock of every delivery in work, whose settlement
     * then fails with {@code CLOSED}. Returns the locks released; other forms release none.
     */
    default int releaseLocks() {
        return 0;
    }

    /** True when each claim takes one row, whatever the batch size (a transactional row lock delivery). */
    default boolean claimsOneRow() {
        return false;
    }

    /** True when a claim holds a connection until the last of its rows settles (a transaction, a lock session). */
    default boolean claimsHoldConnections() {
        return false;
    }

    /**
     * True when acks of deliveries from different claims can be written together, apart from the
     * claim and the handler ({@link #ackAll}): the lease form, whose token guards each ack.
     */
    default boolean acksTogether() {
        return false;
    }

    /**
     * Acks {@code deliveries} in one transaction of one statement batch; returns for each null
     * where its ack took effect, or the {@code LEASE_LOST} error where another claim holds the row
     * now. Only where {@link #acksTogether()}; the caller has marked the deliveries settled, so no
     * keeper moves their tokens meanwhile.
     */
    default List<InboxException> ackAll(ConnectionSource connections, List<InFlight> deliveries, Instant now)
            throws SQLException {
        throw new UnsupportedOperationException("this claim form writes each ack with its delivery");
    }

    /** True when deliveries in work need a keeper. */
    default boolean keepsLeases() {
        return false;
    }
}
