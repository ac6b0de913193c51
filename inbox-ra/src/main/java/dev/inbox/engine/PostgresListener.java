package dev.inbox.engine;

import dev.inbox.engine.form.ConnectionSource;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * LISTEN/NOTIFY on PostgreSQL: one connection of the broker listens on the channel of each
 * subscribed table and wakes its subscription when a notification comes, whichever process
 * inserted. A listener must not go silent unnoticed (a half-open connection, a pooler that dropped
 * the LISTEN): every probe interval it notifies itself on a probe channel through another
 * connection, and when the probe does not come back it reconnects and listens again. After any
 * reconnect every subscription is woken, since notifications may have been missed.
 */
final class PostgresListener {
    private static final System.Logger LOG = System.getLogger(PostgresListener.class.getName());
    private static final long WAIT_MILLIS = 250;

    private final ConnectionSource connections;
    private final Duration probeInterval;
    private final String probeChannel = "inbox_probe_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final Map<String, Runnable> channels = new ConcurrentHashMap<>();
    private final FailureLog failures = new FailureLog(LOG, "the LISTEN/NOTIFY connection");
    private final java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
    private volatile boolean stopping;
    private volatile boolean channelsChanged;
    private volatile boolean silenceForTest;
    private volatile int reconnects;
    private Connection connection;

    PostgresListener(ConnectionSource connections, Duration probeInterval) {
        this.connections = connections;
        this.probeInterval = probeInterval;
    }

    /** Wakes {@code wake} on every notification on {@code channel}. */
    void listen(String channel, Runnable wake) {
        channels.put(channel, wake);
        channelsChanged = true;
    }

    void start(Threads threads) {
        threads.start("inbox-listener", this::run);
    }

    private void run() {
        long probeSentAt = 0;
        boolean probeAnswered = true;
        Duration backoff = Duration.ofMillis(100);
        try {
            while (!stopping) {
                try {
                    if (connection == null) {
                        connect();
                        probeAnswered = true;
                        probeSentAt = System.nanoTime();
                    }
                    if (channelsChanged) {
                        channelsChanged = false;
                        listenAll();
                        // A row inserted before the LISTEN took effect notified no one: look now.
                        channels.values().forEach(Runnable::run);
                    }
                    if (silenceForTest) {
                        silenceForTest = false;
                        execute("UNLISTEN *");
                    }
                    PGNotification[] notifications = connection.unwrap(PGConnection.class)
                            .getNotifications((int) WAIT_MILLIS);
                    if (notifications != null) {
                        for (PGNotification n : notifications) {
                            if (n.getName().equals(probeChannel)) {
                                probeAnswered = true;
                            } else {
                                Runnable wake = channels.get(n.getName());
                                if (wake != null) {
                                    wake.run();
                                }
                            }
                        }
                    }
                    long sinceProbe = System.nanoTime() - probeSentAt;
                    if (!probeAnswered && sinceProbe > probeInterval.toNanos()) {
                        reconnectSilent();
                        continue;
                    }
                    if (probeAnswered && sinceProbe > probeInterval.toNanos()) {
                        probe();
                        probeSentAt = System.nanoTime();
                        probeAnswered = false;
                    }
                    backoff = Duration.ofMillis(100);
                } catch (SQLException | RuntimeException e) {
                    failures.failed(() -> Redaction.redact(String.valueOf(e.getMessage())));
                    close();
                    Thread.sleep(backoff.toMillis());
                    backoff = WakeSignal.min(backoff.multipliedBy(2), Duration.ofSeconds(5));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            close();
            stopped.countDown();
        }
    }

    private void connect() throws SQLException {
        connection = connections.open();
        connection.setAutoCommit(true);
        execute("LISTEN " + probeChannel);
        listenAll();
        failures.succeeded();
        reconnects++;
        // Notifications sent while no one listened are lost: let every subscription look.
        channels.values().forEach(Runnable::run);
    }

    private void listenAll() throws SQLException {
        for (String channel : channels.keySet()) {
            execute("LISTEN " + channel);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    /** Notifies the probe channel through another connection: a live listener hears it. */
    private void probe() throws SQLException {
        connections.use(other -> {
            try (Statement s = other.createStatement()) {
                s.execute("NOTIFY " + probeChannel);
            }
            return null;
        });
    }

    private void reconnectSilent() {
        LOG.log(Level.WARNING, "the LISTEN/NOTIFY connection went silent (its probe did not come back within {0} ms);"
                + " reconnecting and listening again", probeInterval.toMillis());
        close();
    }

    private void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                // a dead connection: the pool discards it
            }
            connection = null;
        }
    }

    /** For tests: the connection stops listening, as behind a pooler that dropped its LISTEN. */
    void silence() {
        silenceForTest = true;
    }

    /** How many times the listener connected, the first time included. */
    int connects() {
        return reconnects;
    }

    void stop() throws InterruptedException {
        stopping = true;
        stopped.await(5, java.util.concurrent.TimeUnit.SECONDS);
    }
}
