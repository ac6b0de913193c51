package dev.inbox.engine;

import dev.inbox.engine.form.Form;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;

/**
 * Extends the lease of every delivery in work of one subscription each half lease, moving each
 * delivery's token forward. It stops extending when paused (as when the database is out of its
 * reach) and at shutdown; a lease then runs out under its handler.
 */
final class LeaseKeeper {
    private static final System.Logger LOG = System.getLogger(LeaseKeeper.class.getName());

    private final String queue;
    private final String table;
    private final Form form;
    private final Connections connections;
    private final Clock clock;
    private final BrokerListener listener;
    private final Duration interval;
    private final Set<InFlight> inWork;
    private final WakeSignal stopSignal = new WakeSignal();
    private final FailureLog failures;
    private volatile boolean stopping;
    private volatile boolean paused;

    LeaseKeeper(String queue, String table, Form form, Connections connections, Clock clock, BrokerListener listener,
            Duration lease, Set<InFlight> inWork) {
        this.queue = queue;
        this.table = table;
        this.form = form;
        this.connections = connections;
        this.clock = clock;
        this.listener = listener;
        this.interval = lease.dividedBy(2);
        this.inWork = inWork;
        this.failures = new FailureLog(LOG, "queue " + queue + ": extending leases on table " + table);
    }

    /** The keeper's loop; returns once stopped. */
    void run() throws InterruptedException {
        while (!stopping) {
            stopSignal.await(interval);
            if (!stopping && !paused && !inWork.isEmpty()) {
                extendAll();
            }
        }
    }

    void stop() {
        stopping = true;
        stopSignal.wake();
    }

    void pause(boolean value) {
        paused = value;
    }

    private void extendAll() {
        try (Connection connection = connections.open()) {
            for (InFlight delivery : inWork) {
                synchronized (delivery) {
                    // A delivery whose transaction locks the whole database needs no lease: no one can claim.
                    if (delivery.settled() || delivery.locksDatabase() || stopping) {
                        continue;
                    }
                    if (!form.extend(connection, delivery, clock.instant())) {
                        LOG.log(Level.WARNING, "queue {0}: the lease of row {1} of table {2} was lost before the"
                                + " keeper could extend it; its settlement will fail with LEASE_LOST", queue,
                                delivery.id(), table);
                    }
                }
            }
            failures.succeeded();
        } catch (SQLException | RuntimeException e) {
            listener.databaseFailed(queue, "lease extension", e);
            failures.failed(() -> Redaction.redact(String.valueOf(e.getMessage())));
        }
    }
}
