package dev.inbox.internal.form;

import java.sql.Connection;
import java.time.Instant;

/** The transaction of one transactional delivery: the handler writes in it, and an ack commits with it. */
public interface HandlerTransaction {

    /** The connection the handler writes through, inside the transaction. */
    Connection connection();

    /** True when the transaction holds the whole database's write lock (SQLite). */
    boolean locksDatabase();

    /**
     * Settles the delivery's ack inside the transaction and commits both.
     *
     * @throws dev.inbox.InboxException {@code LEASE_LOST} or {@code CLOSED} when the ack could not
     *                                  take effect: the transaction is rolled back
     */
    void commitAck(Instant now) throws Exception;

    /** Rolls back what the handler wrote; the row is still claimed, and settles apart. */
    void rollback() throws Exception;

    /** Ends the transaction's hold on its connection; the transaction has ended. */
    void close();
}
