package dev.inbox.internal.form.lease;

import dev.inbox.ShutdownReport;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.Redaction;
import dev.inbox.internal.task.FailureLog;
import dev.inbox.internal.task.OutageBackoff;
import dev.inbox.internal.task.SerialTask;
import dev.inbox.internal.task.Service;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;

/**
 * Extends the lease of every delivery in work of one subscription each half lease, moving each
 * delivery's token forward. When extending fails (the database out of reach) it tries again soon,
 * 100 ms doubling to 5 s and never later than the next half lease, so one failure does not cost a
 * lease. Each pass is a short task the timer signals; while the broker holds a step of the host's
 * clock, it also asks the database's clock whether to follow it ({@link LeaseClock}). It stops at
 * shutdown; a lease then runs out under its handler.
 */
final class LeaseKeeper implements Service {
    private static final System.Logger LOG = System.getLogger(LeaseKeeper.class.getName());

    /** Moves one delivery's lease on; false when the row is no longer held. */
    @FunctionalInterface
    interface Extension {
        boolean extend(Connection connection, InFlight delivery, Instant now) throws SQLException;
    }

    private final String queue;
    private final String table;
    private final String name;
    private final Extension extension;
    private final ConnectionSource connections;
    private final Clock clock;
    private final LeaseClock check;
    private final BrokerListener listener;
    private final Duration interval;
    private final FailureLog failures;
    private final OutageBackoff retry = new OutageBackoff();
    private volatile boolean stopping;
    /** When the next pass is due (System.nanoTime()); 0 once it has started. */
    private volatile long dueAt;
    /** When the pass running started; 0 when none runs. */
    private volatile long passStarted;
    private final Collection<InFlight> inWork;
    private Threads threads;
    private SerialTask pass;

    /** Keeps the leases of {@code inWork} each half lease, as task {@code name}, once started. */
    LeaseKeeper(String queue, String table, String name, Extension extension, ConnectionSource connections,
            Clock clock, LeaseClock check, BrokerListener listener, Duration lease, Collection<InFlight> inWork) {
        this.queue = queue;
        this.table = table;
        this.name = name;
        this.inWork = inWork;
        this.extension = extension;
        this.connections = connections;
        this.clock = clock;
        this.check = check;
        this.listener = listener;
        this.interval = lease.dividedBy(2);
        this.failures = new FailureLog(LOG, "queue " + queue + ": extending leases on table " + table);
    }

    /** Extends the leases in work each half lease from now on, on {@code threads}. */
    @Override
    public void start(Threads pool) {
        this.threads = pool;
        this.pass = new SerialTask(pool, name, this::pass);
        scheduleIn(interval);
    }

    private void scheduleIn(Duration wait) {
        dueAt = System.nanoTime() + wait.toNanos();
        threads.schedule(wait, pass::signal);
    }

    /** One pass, then the next one scheduled: a half lease later, sooner after a failure. */
    private boolean pass() {
        if (stopping) {
            return false;
        }
        dueAt = 0;
        passStarted = System.nanoTime();
        Duration wait;
        try {
            if ((inWork.isEmpty() && !check.stepHeld()) || extendAll(inWork)) {
                retry.succeeded();
                wait = interval;
            } else {
                wait = OutageBackoff.min(retry.failed(), interval);
            }
        } finally {
            passStarted = 0;
        }
        if (!stopping) {
            scheduleIn(wait);
        }
        return false;
    }

    /**
     * Not ready while its passes fail; not live while a pass runs, waits for a thread, or is due for
     * more than {@code limitNanos} (the leases it should extend run out meanwhile).
     */
    @Override
    public Health health(long now, long limitNanos) {
        FailureLog.Outage outage = failures.outage();
        return new Health(outage == null ? null : outage.toString(), stuck(now, limitNanos));
    }

    private String stuck(long now, long limitNanos) {
        if (stopping || pass == null) {
            return null;
        }
        long started = passStarted;
        if (started != 0 && now - started > limitNanos) {
            return "queue " + queue + ": a pass of the lease keeper on table " + table + " has run for "
                    + Duration.ofNanos(now - started).toSeconds() + " s";
        }
        long due = dueAt;
        long late = Math.max(pass.waitingNanos(now), due == 0 ? 0 : now - due);
        if (late > limitNanos) {
            return "queue " + queue + ": the lease keeper of table " + table + " is " + Duration.ofNanos(late)
                    .toSeconds() + " s late, so leases in work may run out";
        }
        return null;
    }

    /** Stops extending once the claims have stopped: a lease then runs out under its handler. */
    @Override
    public ShutdownReport stop(long deadline) {
        stopping = true;
        return ShutdownReport.NONE;
    }

    /** Extends every lease in work; false when the database could not be reached. */
    private boolean extendAll(Collection<InFlight> inWork) {
        try {
            // In turn with the engine's other writers where the database takes one at a time, and the
            // turn before a row's monitor, as a delivery that holds its turn takes the monitor to settle:
            // waiting for the database's lock while holding the monitor left that delivery waiting for it.
            connections.use(connection -> {
                // A step of the host's clock held, followed once the database's clock agrees: then the
                // leases below are extended on the new time at once.
                check.confirmStep(connection);
                for (InFlight delivery : inWork) {
                    // A delivery whose transaction locks the whole database needs no lease: no one can claim. One
                    // whose handler outran its timeout is let go: its lease runs out, and the row returns.
                    if (delivery.locksDatabase() || stopping || delivery.timedOut()) {
                        continue;
                    }
                    delivery.whileUnsettled(() -> {
                        if (!extension.extend(connection, delivery, clock.instant())) {
                            LOG.log(Level.WARNING, "queue {0}: the lease of row {1} of table {2} was lost before"
                                    + " the keeper could extend it; its settlement will fail with LEASE_LOST", queue,
                                    String.valueOf(delivery.id()), table);
                        }
                    });
                }
                return null;
            });
            failures.succeeded();
            return true;
        } catch (SQLException | RuntimeException e) {
            listener.databaseFailed(queue, "lease extension", e);
            failures.failed(() -> Redaction.redact(String.valueOf(e.getMessage())));
            return false;
        }
    }
}
