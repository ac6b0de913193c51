package dev.inbox.internal.broker;

import dev.inbox.InboxException;
import dev.inbox.ShutdownReport;
import dev.inbox.internal.jdbc.Database;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.internal.task.FailureLog;
import dev.inbox.internal.task.OutageBackoff;
import dev.inbox.internal.task.SerialTask;
import dev.inbox.internal.task.Service;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * LISTEN/NOTIFY (PostgreSQL): one connection of the broker listens on the channel of each table
 * whose subscription listens, and wakes that subscription when a notification comes, whichever
 * process inserted. Listening is the last step of opening the broker, and a failure there fails
 * the start; once started, the listener reconnects in the background. It must not go silent
 * unnoticed (a half-open connection, a pooler that dropped the LISTEN): every probe interval it
 * notifies itself on a probe channel through another connection, and when the probe does not come
 * back it reconnects and listens again. After any reconnect every subscription is woken, since
 * notifications may have been missed. Every statement comes from the dialect.
 */
final class NotificationListener implements Service {
    private static final System.Logger LOG = System.getLogger(NotificationListener.class.getName());
    private static final Duration WAIT = Duration.ofMillis(250);

    private final Database database;
    private final Dialect dialect;
    private final Duration probeInterval;
    private final Map<String, Runnable> channels;
    private final String probeChannel = "inbox_probe_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final Sql probe;
    private final FailureLog failures = new FailureLog(LOG, "the LISTEN/NOTIFY connection");
    private final OutageBackoff backoff = new OutageBackoff();
    private volatile boolean stopping;
    private volatile boolean silenceForTest;
    private volatile int connects;
    private Connection connection;
    private Threads threads;
    private SerialTask listening;
    private long probeSentAt = System.nanoTime();
    private boolean probeAnswered = true;

    /** @param channels the wake of each channel listened on */
    NotificationListener(Database database, Duration probeInterval, Map<String, Runnable> channels) {
        this.database = database;
        this.dialect = database.dialect();
        this.probeInterval = probeInterval;
        this.channels = Map.copyOf(channels);
        this.probe = new Sql("notify", dialect.notifyStatement());
    }

    /**
     * Takes the listening connection and listens on every channel: the last step of opening.
     *
     * @throws InboxException {@code CONNECT} naming the channel, when the database refuses to listen
     */
    void open() {
        try {
            connect();
        } catch (SQLException e) {
            close();
            throw new InboxException(InboxException.Kind.CONNECT, "listening for notifications on " + database.where()
                    + " failed (" + database.redact(e.getMessage()) + "): listen-notify needs a direct connection"
                    + " or a pooler in session mode; turn listen-notify off to wake by polling only");
        }
    }

    @Override
    public void start(Threads pool) {
        this.threads = pool;
        listening = new SerialTask(pool, "inbox-listener", this::listen);
        listening.start();
    }

    /**
     * Waits a little for notifications and wakes the subscriptions they name; true to wait again.
     * After a failure it tries again once the outage's backoff has passed.
     */
    private boolean listen() {
        if (stopping) {
            close();
            return false;
        }
        try {
            if (connection == null) {
                connect();
                // Notifications sent while no one listened are lost: let every subscription look.
                channels.values().forEach(Runnable::run);
                probeAnswered = true;
                probeSentAt = System.nanoTime();
            }
            if (silenceForTest) {
                silenceForTest = false;
                execute(dialect.unlistenAll());
            }
            for (String channel : dialect.awaitNotifications(connection, WAIT)) {
                if (channel.equals(probeChannel)) {
                    probeAnswered = true;
                } else {
                    Runnable wake = channels.get(channel);
                    if (wake != null) {
                        wake.run();
                    }
                }
            }
            long sinceProbe = System.nanoTime() - probeSentAt;
            if (!probeAnswered && sinceProbe > probeInterval.toNanos()) {
                LOG.log(Level.WARNING, "the LISTEN/NOTIFY connection went silent (its probe did not come back"
                        + " within {0} ms); reconnecting and listening again", probeInterval.toMillis());
                close();
                return true;
            }
            if (probeAnswered && sinceProbe > probeInterval.toNanos()) {
                probe();
                probeSentAt = System.nanoTime();
                probeAnswered = false;
            }
            backoff.succeeded();
            return true;
        } catch (SQLException | RuntimeException e) {
            failures.failed(() -> database.redact(String.valueOf(e.getMessage())));
            close();
            if (!stopping) {
                threads.schedule(backoff.failed(), listening::signal);
            }
            return false;
        }
    }

    private void connect() throws SQLException {
        connection = database.open();
        connection.setAutoCommit(true);
        execute(dialect.listen(probeChannel));
        for (String channel : channels.keySet()) {
            execute(dialect.listen(channel));
        }
        failures.succeeded();
        connects++;
    }

    private void execute(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    /** Notifies the probe channel through another connection: a live listener hears it. */
    private void probe() throws SQLException {
        database.use(other -> {
            try (PreparedStatement ps = probe.prepare(other)) {
                probe.setString(ps, "channel", probeChannel);
                ps.executeQuery().close();
            }
            return null;
        });
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
        return connects;
    }

    /**
     * Stops listening and closes its connection, once its wait for notifications (at most a quarter
     * second) has ended; a listener opened and never started just closes.
     */
    @Override
    public ShutdownReport stop(long deadline) throws InterruptedException {
        stopping = true;
        if (listening == null || listening.awaitIdle(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))
                .plus(WAIT))) {
            close();
        }
        return ShutdownReport.NONE;
    }

    /**
     * Not ready while its connection fails: the subscriptions that listen wake by their poll alone.
     * Shown beside the subscriptions' health ({@link dev.inbox.BrokerHealth#listener}).
     */
    @Override
    public Health health(long now, long stuckNanos) {
        FailureLog.Outage outage = failures.outage();
        return new Health(outage == null ? null : outage.toString(), null);
    }

    @Override
    public String toString() {
        return "the LISTEN connection";
    }
}
