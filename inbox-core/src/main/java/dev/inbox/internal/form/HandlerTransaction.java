package dev.inbox.internal.form;

import dev.inbox.spi.DeliveryTransactions;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/** The transaction of one transactional delivery: the handler writes in it, and an ack commits with it. */
public interface HandlerTransaction {

    /** Settles the ack through the transaction's connection. */
    @FunctionalInterface
    interface AckIn {
        void ack(Connection transaction, Instant now) throws SQLException;
    }

    /** Lets the claim give up what it kept for the row until the commit. */
    @FunctionalInterface
    interface AfterCommit {
        void committed() throws SQLException;
    }

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

    /**
     * A delivery transaction of its own, apart from the claim that holds the row (the lease and
     * advisory lock forms): {@code ackIn} settles the ack just before the commit, and
     * {@code afterCommit} lets the claim give up the row after it.
     */
    static HandlerTransaction apart(DeliveryTransactions.Open open, AckIn ackIn, AfterCommit afterCommit) {
        return new HandlerTransaction() {
            @Override
            public Connection connection() {
                return open.connection();
            }

            @Override
            public boolean locksDatabase() {
                return open.locksDatabase();
            }

            @Override
            public void commitAck(Instant now) throws Exception {
                ackIn.ack(open.connection(), now);
                open.commit();
                try {
                    afterCommit.committed();
                } catch (SQLException | RuntimeException e) {
                    System.getLogger(HandlerTransaction.class.getName()).log(Level.DEBUG,
                            "releasing a row after its commit failed; its session ends", e);
                }
            }

            @Override
            public void rollback() throws Exception {
                open.rollback();
            }

            @Override
            public void close() {
                open.close();
            }
        };
    }
}
