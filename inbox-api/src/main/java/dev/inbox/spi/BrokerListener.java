package dev.inbox.spi;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import java.time.Duration;
import java.util.Locale;

/**
 * Hears what happens to a broker's jobs, for metrics and tests: the listener SPI that inbox-cdi
 * binds to OpenTelemetry, and that a plain-JDBC user binds to anything
 * ({@code InboxBroker.listener}). Called on the engine's threads; keep it quick and let it not
 * throw. Every method does nothing by default.
 */
public interface BrokerListener {

    /** How a delivery ended, as a metric counts it. */
    enum Result {
        /** Acknowledged: the row is deleted or stamped processed. */
        ACK,
        /** Given back to the queue for a later attempt. */
        RETRY,
        /** Deleted without a trace (no dead-letter table). */
        DROP,
        /** Moved into the queue's dead-letter table. */
        DEAD_LETTER,
        /** The settlement found the row no longer this delivery's (its lease expired and another claim took it). */
        LEASE_LOST,
        /** The settlement statement failed; the row comes back after its retry back-off, or when its claim ends. */
        FAILED;

        /** The value of a metric attribute: {@code ack}, {@code dead_letter}, ... */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One listener that tells each of {@code listeners} in turn (metrics beside a console, say). */
    static BrokerListener all(java.util.List<BrokerListener> listeners) {
        java.util.List<BrokerListener> each = java.util.List.copyOf(listeners);
        return each.size() == 1 ? each.get(0) : new Listeners(each);
    }

    /** {@code jobs} jobs were inserted into {@code queue}'s table (in a transaction that may yet roll back). */
    default void published(String queue, int jobs) {}

    /** A claim of {@code queue} took {@code rows} rows (0 when nothing was due) in {@code took}. */
    default void claimed(String queue, int rows, Duration took) {}

    /**
     * A handler of {@code queue} ran for {@code took} on {@code jobs} jobs (1, or a batch's size);
     * {@code error} is what it threw, null when it returned.
     */
    default void handled(String queue, int jobs, Duration took, Throwable error) {}

    /** A delivery of {@code queue} ended as {@code result}. */
    default void finished(String queue, Result result) {}

    /** A delivery of {@code queue} settled with {@code outcome}. */
    default void settled(String queue, Object id, int attempt, Outcome outcome) {}

    /** A settlement did not take effect: {@code LEASE_LOST} or a failed statement. */
    default void settlementFailed(String queue, Object id, Outcome outcome, InboxException error) {}

    /** A claim or keeper statement failed; the engine backs off and tries again. */
    default void databaseFailed(String queue, String what, Exception error) {}

    /**
     * A transaction of {@code queue} lost a race to a concurrent one and was rolled back ({@code
     * what}: {@code claim}, {@code delivery}, {@code settlement}, {@code lease extension}); the
     * engine ran it again, or, for a delivery, gave the row back for another attempt.
     */
    default void raceLost(String queue, String what) {}
}
