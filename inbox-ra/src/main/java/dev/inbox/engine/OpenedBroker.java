package dev.inbox.engine;

import dev.inbox.InboxException;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A broker once opened: every subscription built and prepared, every queue's table opened, the
 * listener listening; nothing runs until {@link #start}. Then it serves publishers and stats, and
 * shuts down in the order the lifecycle gives.
 */
final class OpenedBroker {
    private static final System.Logger LOG = System.getLogger(OpenedBroker.class.getName());

    private final EngineContext engine;
    private final Map<String, PublishQueue> queues;
    private final Map<String, SubscriptionRunner> runners;
    private final Map<String, String> deadLetterTables;
    private final NotificationListener listener;
    private boolean started;

    /** @param listener null where no subscription listens for notifications */
    OpenedBroker(EngineContext engine, Map<String, PublishQueue> queues, Map<String, SubscriptionRunner> runners,
            Map<String, String> deadLetterTables, NotificationListener listener) {
        this.engine = engine;
        this.queues = Map.copyOf(queues);
        this.runners = runners;
        this.deadLetterTables = Map.copyOf(deadLetterTables);
        this.listener = listener;
    }

    /** Starts the listener and every subscription's claim loops and workers. */
    synchronized void start(Threads threads) {
        started = true;
        if (listener != null) {
            listener.start(threads);
        }
        runners.values().forEach(runner -> runner.start(threads));
    }

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

    static InboxException unknown(String queue) {
        return new InboxException(InboxException.Kind.DECLARATION, "queue " + queue + " is unknown to this broker:"
                + " route it (broker.route(\"" + queue + "\", Table.class)) or subscribe to it before connect()");
    }

    String dialectName() {
        return engine.database().dialect().name();
    }

    /** Wakes the local subscription of {@code queue}, if any. */
    void wake(String queue) {
        engine.wakes().wakeLocal(queue);
    }

    /** Each subscription's health, and the listener's. */
    BrokerHealth health(Duration stuckAfter) {
        List<QueueHealth> health = new ArrayList<>();
        new TreeMap<>(runners).values().forEach(runner -> health.add(runner.health(stuckAfter)));
        FailureLog.Outage listening = listener == null ? null : listener.outage();
        return new BrokerHealth(true, List.copyOf(health), listening == null ? "" : listening.toString());
    }

    /** What each queue holds now, by queue name. */
    Map<String, QueueStats> stats() {
        Map<String, QueueStats> stats = new TreeMap<>();
        Database database = engine.database();
        try (Connection connection = database.open()) {
            for (PublishQueue queue : queues.values()) {
                long unfinished = count(connection, database.dialect().countUnfinished(queue.table().shape()));
                SubscriptionRunner runner = runners.get(queue.queue());
                long inWork = runner == null ? 0 : runner.inWork();
                String dead = deadLetterTables.get(queue.queue());
                stats.put(queue.queue(), new QueueStats(Math.max(0, unfinished - inWork), inWork,
                        dead == null ? 0 : count(connection, database.dialect().countRows(dead))));
            }
        } catch (SQLException e) {
            throw new InboxException(InboxException.Kind.DATABASE, "counting the queues' rows failed: "
                    + database.redact(e.getMessage()), e);
        }
        return stats;
    }

    private static long count(Connection connection, String sql) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Stops the claim loops and the listener, releases the locks of advisory deliveries in work,
     * lets the other deliveries in work settle until {@code drainTimeout}, gives back the rows of
     * handlers still running then, and closes a pool the broker built.
     */
    synchronized ShutdownReport shutdown(Duration drainTimeout) {
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        int cutOff = 0;
        int released = 0;
        int locks = 0;
        int closed = 0;
        try {
            for (SubscriptionRunner runner : runners.values()) {
                runner.stopClaiming(Duration.ofSeconds(30));
            }
            if (listener != null) {
                listener.stop(started);
            }
            for (SubscriptionRunner runner : runners.values()) {
                locks += runner.stopForm();
            }
            for (SubscriptionRunner runner : runners.values()) {
                cutOff += runner.drain(deadline);
                released += runner.rowsReleased();
                closed += runner.connectionsClosed();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        engine.database().close();
        ShutdownReport report = new ShutdownReport(released, locks, cutOff, closed);
        LOG.log(Level.INFO, "Inbox broker shut down: {0}", report);
        return report;
    }

    /** For tests: the LISTEN connection stops hearing, as behind a pooler that dropped its LISTEN. */
    void silenceListener() {
        listener.silence();
    }

    /** For tests: how many times the LISTEN connection connected. */
    int listenerConnects() {
        return listener == null ? 0 : listener.connects();
    }
}
