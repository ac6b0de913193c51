package dev.inbox.engine;

import dev.inbox.InboxException;
import dev.inbox.Outcome;

/**
 * Hears what happens to deliveries, for metrics and tests. Called on the engine's threads; keep
 * it quick. Every method does nothing by default.
 */
public interface BrokerListener {

    /** A delivery of {@code queue} settled with {@code outcome}. */
    default void settled(String queue, Object id, int attempt, Outcome outcome) {}

    /** A settlement did not take effect: {@code LEASE_LOST} or a failed statement. */
    default void settlementFailed(String queue, Object id, Outcome outcome, InboxException error) {}

    /** A claim or keeper statement failed; the engine backs off and tries again. */
    default void databaseFailed(String queue, String what, Exception error) {}
}
