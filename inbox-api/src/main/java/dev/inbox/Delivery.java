package dev.inbox;

import java.sql.Connection;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * One claimed row in work, as a handler sees it. A handler takes it as an optional second
 * parameter.
 */
public interface Delivery {

    /** The row's id, as the JDBC driver read it. */
    Object id();

    /** The queue the row was claimed from. */
    String queue();

    /**
     * The attempt as it stood before this claim: 1 on the first delivery of a row whose attempt
     * column defaults to 1. Zero when the table has no attempt column.
     */
    int attempt();

    /** The row's headers; empty when the table has no headers column. */
    Map<String, String> headers();

    /** In the lease form, the lease's current deadline (it moves as the keeper extends it). */
    Optional<Instant> deadline();

    /**
     * In a transactional subscription, the connection of the delivery's transaction: what the
     * handler writes through it commits with an ack and rolls back otherwise.
     *
     * @throws IllegalStateException when the subscription is not transactional
     */
    Connection connection();
}
