package dev.inbox.internal.form;

import dev.inbox.internal.jdbc.Sql;
import dev.inbox.internal.task.FailureLog;
import dev.inbox.spi.Threads;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * One claim form as one subscription uses it: it claims rows, hands each out bound to its
 * {@link Claim} (which settles it), says what its claims take (rows, connections), and runs what
 * its deliveries need beside the workers (the lease form's keeper and ack writer).
 */
public interface Form {

    /** Every statement of the form, prepared on the server when the subscription opens. */
    List<Sql> statements();

    /** The most rows one claim takes for a subscription that asks for {@code batchSize}. */
    int rowsPerClaim(int batchSize);

    /**
     * How many claims may hold rows at once, when {@code workers} handle them and {@code rows}
     * claimed rows may be held in all: a claim that keeps a connection until its rows settle
     * counts against the pool.
     */
    int claimsAtOnce(int workers, int rows);

    /** The most connections the subscription holds at once with {@code workers} and {@code claimLoops}. */
    int connections(int workers, int claimLoops);

    /**
     * True when each claim must run in the task that then works its rows: inside their delivery's
     * transaction (the row lock form when that transaction is bound to its thread, as JTA's is),
     * or because the claim holds a connection while its rows are worked and the server binds
     * connections to the task that took them ({@link dev.inbox.spi.DeliveryTransactions#boundToThread}).
     * Each worker then claims for itself, and no rows wait in a buffer (as where a claim takes one row).
     */
    default boolean claimsOnWorker() {
        return false;
    }

    /**
     * True when a lone worker claims for itself once it has worked the rows waiting, as a plain
     * loop does, instead of a claim loop claiming the next rows on a thread of its own while the
     * worker works: the loop's wake and wait are two context switches a claim. Measured faster and
     * cheaper for the lease form, whose claim holds nothing open, for the advisory form on SQLite,
     * whose claim commits the acks of the rows worked, and for the row lock form where its claim
     * carries the acks and the commit of the claim worked ({@link #nextClaimCarriesWorked}); the
     * row lock form elsewhere and the advisory form elsewhere drained slower so (inbox-bench's
     * SideBySide, one worker, batches of 16). With claims of {@code batch} rows; at one row a claim
     * loop's overlap pays for its wake, unless the claim carries the acks in its round trip.
     */
    default boolean loneWorkerClaimsWhenDry(int batch) {
        return false;
    }

    /**
     * The subscription went quiet: no claim runs as a worker ends its run, or a claim loop ended
     * its claims with no worker running. What waits for the next claim to carry it (acks) is
     * written now, as no claim may come before the poll interval.
     */
    default void quiet() {}

    /**
     * True when the next claim on the thread that worked a claim's last row carries that claim's
     * settlement (a row lock claim's acks and commit), so that worker claims next where there is
     * room, instead of whichever thread freed the room.
     */
    default boolean nextClaimCarriesWorked() {
        return false;
    }

    /**
     * The worker on this thread goes on without a claim of its own (to the next row waiting, or
     * idle): what it left for its next claim to carry (a row lock claim's acks and commit) is
     * written now.
     */
    default void carryEnds() {}

    /** Claims up to {@code limit} due rows at {@code now}, in claim order. */
    List<InFlight> claim(Instant now, int limit) throws SQLException;

    /**
     * Starts what the form runs beside the workers, on threads named after {@code name}; {@code inWork}
     * is the subscription's deliveries claimed and not yet done.
     */
    default void start(Threads threads, String name, Collection<InFlight> inWork) {}

    /** The outage of what the form runs beside the workers (the lease keeper), for health checks; null when none. */
    default FailureLog.Outage outage() {
        return null;
    }

    /**
     * What is stuck of what the form runs beside the workers at {@code now} (System.nanoTime()): a
     * task late by more than {@code limitNanos}, for liveness; null when nothing is.
     */
    default String stuck(long now, long limitNanos) {
        return null;
    }

    /**
     * Shutdown, once the claims have stopped: leases are no longer extended, and the locks of
     * deliveries in work are released (their settlements then fail with {@code CLOSED} and their
     * rows are back). Returns the locks released.
     */
    default int stop() {
        return 0;
    }

    /**
     * Connections (sessions) closed instead of given back to their pool, so that the locks they
     * held ended with them: their release failed.
     */
    default int connectionsClosed() {
        return 0;
    }

    /**
     * Shutdown, once the workers are done: writes the acks handed over and stops the form's
     * threads; false when that took longer than {@code wait}.
     */
    default boolean close(Duration wait) throws InterruptedException {
        return true;
    }
}
