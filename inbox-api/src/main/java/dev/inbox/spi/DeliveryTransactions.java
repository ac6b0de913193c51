package dev.inbox.spi;

import dev.inbox.InboxSpec;
import java.sql.Connection;

/**
 * Opens the transaction of a transactional delivery. By default a JDBC transaction on a connection
 * of the broker's pool (the engine's own); in an application server a JTA transaction, which every
 * write of the handler through a JTA data source joins.
 */
public interface DeliveryTransactions {

    /** One delivery's open transaction. */
    interface Open {
        /** The connection through which the handler writes and the engine settles, inside the transaction. */
        Connection connection();

        /** Commits the handler's writes and the settlement together. */
        void commit() throws Exception;

        /** Rolls back what the handler wrote. */
        void rollback() throws Exception;

        /** Releases the connection; the transaction has ended. */
        void close();

        /** True when the open transaction holds the whole database's write lock (SQLite). */
        default boolean locksDatabase() {
            return false;
        }
    }

    /** Begins the transaction of one delivery of {@code table}. */
    Open begin(InboxSpec table) throws Exception;

    /**
     * Arranges for {@code action} to run once the transaction the calling thread is in commits,
     * where this kind of transaction can tell (JTA); false when there is no such transaction, and
     * nothing was arranged.
     */
    default boolean afterCommit(Runnable action) {
        return false;
    }

    /**
     * True when the calling thread is inside a transaction of its caller's that a connection of the
     * broker's data source joins (an active JTA transaction): an operator's write (a cancel, a dead
     * letter's retry) then runs inside it, and commits or rolls back with the caller's own writes. A
     * connection's autocommit cannot tell: Open Liberty reports it on inside a global transaction.
     */
    default boolean callerInTransaction() {
        return false;
    }

    /**
     * True when a transaction belongs to the thread that began it and ends only there (JTA): the
     * row lock form then claims on the thread that delivers, inside the delivery's transaction, so
     * that the claim, the handler's writes and the settlement commit together. False for a JDBC
     * transaction, which any thread may end. A server whose transactions are bound to threads also
     * binds connections to the task that took them (Open Liberty gives a connection still open back
     * to its pool when the task's local transaction containment ends): the forms that hold a
     * connection while their rows are worked then claim on the worker too.
     */
    default boolean boundToThread() {
        return false;
    }
}
