package dev.inbox.engine.form;

import dev.inbox.engine.BrokerListener;
import dev.inbox.engine.FailureLog;
import dev.inbox.engine.InFlight;
import dev.inbox.engine.OutageBackoff;
import dev.inbox.engine.Redaction;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Extends the lease of every delivery in work of one subscription each half lease, moving each
 * delivery's token forward. When extending fails (the database out of reach) it tries again soon,
 * 100 ms doubling to 5 s and never later than the next half lease, so one failure does not cost a
 * lease. It stops at shutdown; a lease then runs out under its handler.
 */
final class LeaseKeeper {
    private static final System.Logger LOG = System.getLogger(LeaseKeeper.class.getName());

    /** Moves one delivery's lease on; false when the row is no longer held. */
    @FunctionalInterface
    interface Extension {
        boolean extend(Connection connection, InFlight delivery, Instant now) throws SQLException;
    }

    private final String queue;
    private final String table;
    private final Extension extension;
    private final ConnectionSource connections;
    private final Clock clock;
    private final BrokerListener listener;
    private final Duration interval;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final FailureLog failures;
    private volatile boolean stopping;

    LeaseKeeper(String queue, String table, Extension extension, ConnectionSource connections, Clock clock,
            BrokerListener listener, Duration lease) {
        this.queue = queue;
        this.table = table;
        this.extension = extension;
        this.connections = connections;
        this.clock = clock;
        this.listener = listener;
        this.interval = lease.dividedBy(2);
        this.failures = new FailureLog(LOG, "queue " + queue + ": extending leases on table " + table);
    }

    /** The keeper's loop over {@code inWork}; returns once stopped. */
    void run(Collection<InFlight> inWork) {
        Duration wait = interval;
        OutageBackoff retry = new OutageBackoff();
        try {
            while (!stop.await(wait.toNanos(), TimeUnit.NANOSECONDS)) {
                if (inWork.isEmpty() || extendAll(inWork)) {
                    retry.succeeded();
                    wait = interval;
                } else {
                    Duration next = retry.failed();
                    wait = next.compareTo(interval) <= 0 ? next : interval;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void stop() {
        stopping = true;
        stop.countDown();
    }

    /** Extends every lease in work; false when the database could not be reached. */
    private boolean extendAll(Collection<InFlight> inWork) {
        try (Connection connection = connections.open()) {
            for (InFlight delivery : inWork) {
                synchronized (delivery) {
                    // A delivery whose transaction locks the whole database needs no lease: no one can claim.
                    if (delivery.settled() || delivery.locksDatabase() || stopping) {
                        continue;
                    }
                    if (!extension.extend(connection, delivery, clock.instant())) {
                        LOG.log(Level.WARNING, "queue {0}: the lease of row {1} of table {2} was lost before the"
                                + " keeper could extend it; its settlement will fail with LEASE_LOST", queue,
                                String.valueOf(delivery.id()), table);
                    }
                }
            }
            failures.succeeded();
            return true;
        } catch (SQLException | RuntimeException e) {
            listener.databaseFailed(queue, "lease extension", e);
            failures.failed(() -> Redaction.redact(String.valueOf(e.getMessage())));
            return false;
        }
    }
}
