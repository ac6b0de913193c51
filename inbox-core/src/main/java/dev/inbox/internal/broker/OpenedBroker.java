package dev.inbox.internal.broker;

import dev.inbox.BrokerHealth;
import dev.inbox.Cancellation;
import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.Publisher;
import dev.inbox.QueueHealth;
import dev.inbox.QueueStats;
import dev.inbox.ShutdownReport;
import dev.inbox.internal.jdbc.Database;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.internal.runner.EngineContext;
import dev.inbox.internal.runner.SubscriptionRunner;
import dev.inbox.internal.task.Service;
import dev.inbox.internal.task.Services;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * A broker once opened: every subscription built and prepared, every queue's table opened, the
 * listener listening; nothing runs until {@link #start}. Then it serves publishers and stats, and
 * shuts down in the order the lifecycle gives.
 */
public final class OpenedBroker {
    private static final System.Logger LOG = System.getLogger(OpenedBroker.class.getName());

    private final EngineContext engine;
    private final Map<String, PublishQueue> queues;
    private final Map<String, SubscriptionRunner> runners;
    private final Map<String, String> deadLetterTables;
    private final NotificationListener listener;
    private final QueuePauses pauses;
    private final RecurringJobs recurring;
    private final SubscriberTable subscribers;
    /** Every part that runs, in the order they start: the listener, the subscriptions, the recurring jobs. */
    private final List<Service> services = new ArrayList<>();
    private Threads threads;

    /** @param listener null where no subscription listens for notifications */
    OpenedBroker(EngineContext engine, Map<String, PublishQueue> queues, Map<String, SubscriptionRunner> runners,
            Map<String, String> deadLetterTables, NotificationListener listener, QueuePauses pauses,
            RecurringJobs recurring, SubscriberTable subscribers) {
        this.pauses = pauses;
        this.subscribers = subscribers;
        this.recurring = recurring;
        this.engine = engine;
        this.queues = Map.copyOf(queues);
        this.runners = runners;
        this.deadLetterTables = Map.copyOf(deadLetterTables);
        this.listener = listener;
        if (listener != null) {
            services.add(listener);
        }
        services.addAll(runners.values());
        services.add(recurring);
    }

    /**
     * Starts the listener, every subscription's claim loops and workers, and the recurring jobs,
     * which publish through {@code publishers}: all or none. Where one cannot start, those started
     * stop, the pool the broker built closes, and the failure is thrown.
     */
    public synchronized void start(Threads pool, BiFunction<String, Class<?>, Publisher<?>> publishers) {
        threads = pool;
        recurring.publishThrough(publishers, this::wake);
        try {
            Services.startAll(services, pool, STOP_AFTER_FAILED_START);
            subscribers.start(pool);
        } catch (RuntimeException | Error e) {
            subscribers.stop(System.nanoTime() + STOP_AFTER_FAILED_START.toNanos());
            try {
                if (listener != null) {
                    listener.stop(System.nanoTime()); // its connection, where it never started
                }
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            engine.database().close();
            throw e;
        }
    }

    /** How long the parts started may take to stop where a later one cannot start. */
    private static final Duration STOP_AFTER_FAILED_START = Duration.ofSeconds(5);

    /**
     * A publisher's view of {@code queue}.
     *
     * @throws InboxException {@code DECLARATION} for a queue the broker neither routes nor subscribes
     */
    PublishQueue publishing(String queue) {
        PublishQueue known = queues.get(queue);
        if (known == null) {
            throw unknown(queue);
        }
        return known;
    }

    public static InboxException unknown(String queue) {
        return new InboxException(InboxException.Kind.DECLARATION, "queue " + queue + " is unknown to this broker:"
                + " route it (broker.route(\"" + queue + "\", Table.class)) or subscribe to it before connect()");
    }

    public String dialectName() {
        return engine.database().dialect().name();
    }

    /** Wakes the local subscription of {@code queue}, if any. */
    public void wake(String queue) {
        engine.wakes().wakeLocal(queue);
    }

    /** Each subscription's health, and the listener's. */
    public BrokerHealth health(Duration stuckAfter) {
        List<QueueHealth> health = new ArrayList<>();
        new TreeMap<>(runners).values().forEach(runner -> health.add(runner.health(stuckAfter)));
        String listening = listener == null ? null : listener.health(System.nanoTime(), Long.MAX_VALUE).down();
        return new BrokerHealth(true, List.copyOf(health), listening == null ? "" : listening);
    }

    /** The recurring jobs declared on this broker, for an operator. */
    public RecurringJobs recurring() {
        return recurring;
    }

    /**
     * The unfinished jobs of {@code queue}, for an operator.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue this broker does not know
     */
    public JobRows jobs(String queue) {
        return new JobRows(queue, queues.get(known(queue)), engine.transactions());
    }

    /**
     * The dead-letter table of {@code queue}, for an operator.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue this broker does not subscribe to with a
     *                        dead-letter table
     */
    public DeadLetterRows deadLetters(String queue, BrokerPublisher<?> publisher, com.fasterxml.jackson.databind.ObjectMapper
            json) {
        String dead = deadLetterTables.get(queue);
        if (dead == null) {
            throw new InboxException(InboxException.Kind.NOT_FOUND, "queue " + queue + " has no dead-letter table"
                    + " here: " + (runners.containsKey(queue) ? "its subscription declares none (deadLetter(...))"
                    : "no subscription of this broker handles it"));
        }
        return new DeadLetterRows(queue, dead, queues.get(queue), publisher, json, engine.transactions());
    }

    public void pause(String queue) {
        pauses.pause(known(queue));
    }

    public void resume(String queue) {
        pauses.resume(known(queue));
        wake(queue);
    }

    public Cancellation cancel(String queue, Object given) {
        PublishQueue target = queues.get(known(queue));
        Object id = JobIds.of(target.table().shape(), given);
        Database database = engine.database();
        JobCancel cancel = new JobCancel(database.dialect(), target.table().shape(), database.identity());
        try (Connection connection = database.open()) {
            return cancel.cancel(connection, id, engine.clock().instant(), engine.transactions().callerInTransaction());
        } catch (SQLException e) {
            throw new InboxException(InboxException.Kind.DATABASE, "queue " + queue + ": cancelling job " + id
                    + " failed: " + database.redact(e.getMessage()), e);
        }
    }

    public java.util.Set<String> paused() {
        return pauses.all();
    }

    private String known(String queue) {
        if (!queues.containsKey(queue)) {
            throw new InboxException(InboxException.Kind.NOT_FOUND, "queue " + queue + " is unknown to this broker:"
                    + " it neither subscribes to it nor routes it");
        }
        return queue;
    }

    /** What each queue holds now, by queue name. */
    public Map<String, QueueStats> stats() {
        Map<String, QueueStats> stats = new TreeMap<>();
        Database database = engine.database();
        Dialect dialect = database.dialect();
        try (Connection connection = database.open()) {
            for (PublishQueue queue : queues.values()) {
                SubscriptionRunner runner = runners.get(queue.queue());
                String dead = deadLetterTables.get(queue.queue());
                stats.put(queue.queue(), depth(connection, dialect, queue.table(),
                        runner == null ? 0 : runner.inWork(),
                        dead == null ? 0 : count(connection, dialect.countRows(dead))));
            }
        } catch (SQLException e) {
            throw new InboxException(InboxException.Kind.DATABASE, "counting the queues' rows failed: "
                    + database.redact(e.getMessage()), e);
        }
        return stats;
    }

    private QueueStats depth(Connection connection, Dialect dialect, OpenedTable table, long inWork, long dead)
            throws SQLException {
        Sql depth = new Sql("depth", dialect.depth(table.shape()));
        Instant now = engine.clock().instant();
        try (PreparedStatement ps = depth.prepare(connection)) {
            if (depth.uses("now")) {
                depth.setTime(ps, "now", dialect.stored(now), dialect);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long unfinished = rs.getLong(1);
                long due = rs.getLong(2);
                Instant earliest = dialect.readTime(rs, 3);
                if (rs.getMetaData().getColumnCount() > 3) {
                    now = dialect.readTime(rs, 4); // the table keeps the database's clock
                }
                // The lease form's rows in work hold a lease, so they are not due; the other forms' look due.
                boolean leased = table.spec().claimForm() == ClaimForm.LEASE;
                long ready = Math.max(0, due - (leased ? 0 : inWork));
                long scheduled = Math.max(0, unfinished - due - (leased ? inWork : 0));
                Duration oldest = table.spec().publishedAt().isEmpty() ? null
                        : earliest == null || ready == 0 ? Duration.ZERO : Duration.between(earliest, now);
                if (oldest != null && oldest.isNegative()) {
                    oldest = Duration.ZERO; // clocks apart by a little
                }
                return new QueueStats(ready, inWork, scheduled, dead, oldest);
            }
        }
    }

    private static long count(Connection connection, String sql) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Stops every part in parallel under one deadline, {@code drainTimeout} from now: the claim
     * loops, the listener and the recurring jobs stop at once, the locks of advisory deliveries in
     * work are released, the other deliveries in work settle until the deadline, and the rows of
     * handlers still running then are given back. Returns within the deadline and a grace of a few
     * seconds however many queues run, and however long a claim hangs on the database: what has
     * not stopped by then ends as the pool the broker built closes.
     */
    public synchronized ShutdownReport shutdown(Duration drainTimeout) {
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        ShutdownReport report = threads == null ? ShutdownReport.NONE : Services.stopAll(services, threads, deadline);
        subscribers.stop(deadline + Services.GRACE.toNanos()); // after the handlers: their tables are read this way until they have settled
        engine.database().close();
        LOG.log(Level.INFO, "Inbox broker shut down: {0}", report);
        return report;
    }

    /** For tests: the LISTEN connection stops hearing, as behind a pooler that dropped its LISTEN. */
    public void silenceListener() {
        listener.silence();
    }

    /** For tests: how many times the LISTEN connection connected. */
    public int listenerConnects() {
        return listener == null ? 0 : listener.connects();
    }
}
