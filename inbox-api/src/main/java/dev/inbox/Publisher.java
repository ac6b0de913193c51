package dev.inbox;

import java.sql.Connection;
import java.util.Collection;
import java.util.List;

/**
 * Inserts jobs into one queue's table. The insert is built once from the table's description.
 * After the broker has shut down every call fails with {@link InboxException.Kind#CLOSED}.
 *
 * @param <T> the payload type, encoded as JSON
 */
public interface Publisher<T> {

    /** The queue this publisher writes to. */
    String queue();

    /** Inserts one job in a transaction of its own and wakes the queue's local subscription. */
    default Published publish(T payload) {
        return publish(payload, PublishOptions.NONE);
    }

    /**
     * Inserts one job with a delay or due time, group, priority, headers, id or unique key.
     *
     * @return the job's id; a {@link Published#isDuplicate() duplicate} when the options carry a
     *         unique key or id a row already holds (nothing was inserted), naming that row
     */
    Published publish(T payload, PublishOptions options);

    /**
     * Inserts one job through {@code connection}, inside the caller's transaction: a rollback
     * publishes nothing. The local subscription finds it at the next wake after the caller commits.
     * A duplicate unique key inserts nothing and leaves the caller's transaction as it was.
     */
    Published publish(Connection connection, T payload, PublishOptions options);

    /** Inserts one job through the caller's connection, inside its transaction. */
    default Published publish(Connection connection, T payload) {
        return publish(connection, payload, PublishOptions.NONE);
    }

    /**
     * Inserts jobs in one transaction of their own, as one batch of inserts, and wakes the queue
     * once: all of them or, when it fails, none. Every job takes {@code options}, which may not
     * carry an id or a unique key for more than one job. An empty collection inserts nothing.
     *
     * @return each job's id, in the order of {@code payloads}
     */
    List<Published> publishAll(Collection<? extends T> payloads, PublishOptions options);

    /** Inserts jobs in one transaction of their own, as one batch of inserts; their ids in order. */
    default List<Published> publishAll(Collection<? extends T> payloads) {
        return publishAll(payloads, PublishOptions.NONE);
    }

    /**
     * Inserts jobs through {@code connection}, as one batch inside the caller's transaction (on an
     * autocommit connection each commits on its own); their ids in the order of {@code payloads}.
     */
    List<Published> publishAll(Connection connection, Collection<? extends T> payloads, PublishOptions options);
}
