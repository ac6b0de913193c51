package dev.inbox.internal.broker;

import dev.inbox.InboxException;
import dev.inbox.InboxException.Kind;
import dev.inbox.internal.jdbc.Database;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How every live broker on the database reads each queue table, kept in a subscriber table they
 * share ({@code queue_table}, {@code subscriber}, {@code declaration}, {@code seen_at}). Two
 * brokers that read one table differently take each other's rows: another claim form does not
 * see the other's claims (rows handled twice), another payload type dead-letters the other's
 * rows. So at open each subscription writes its declaration (claim form and payload type), and
 * the broker is refused where a live subscriber of the same table declared another one, naming
 * both. Each broker refreshes its rows every {@link #HEARTBEAT} and deletes them when it shuts
 * down; a broker not seen for {@link #STALE} (killed without a shutdown) is taken for gone and
 * its rows deleted by the next broker that opens. Without the table nothing is checked.
 */
final class SubscriberTable {
    private static final System.Logger LOG = System.getLogger(SubscriberTable.class.getName());
    static final Duration HEARTBEAT = Duration.ofSeconds(30);
    /** Six heartbeats missed: long enough for a pause of the database or the host's clock a little off. */
    static final Duration STALE = Duration.ofMinutes(3);
    /** A statement of the heartbeat or the shutdown waits no longer for a lock: the stop has a deadline. */
    private static final int STATEMENT_SECONDS = 2;

    private final Database database;
    private final Dialect dialect;
    private final String table;
    private final Clock clock;
    private final String subscriber;
    /** Each queue table's declaration, by the table's name as the rows keep it. */
    private final Map<String, String> declarations;
    private final boolean available;
    private volatile boolean stopped;
    private Threads threads;

    private SubscriberTable(Database database, String table, Clock clock, Map<String, String> declarations,
            boolean available) {
        this.database = database;
        this.dialect = database.dialect();
        this.table = table;
        this.clock = clock;
        this.subscriber = subscriberName();
        this.declarations = Map.copyOf(declarations);
        this.available = available;
    }

    /**
     * Writes the declarations of {@code subscriptions} (queue table to what the queue declares),
     * or refuses the first that a live subscriber elsewhere declared another way, and then writes
     * none.
     *
     * @throws InboxException {@code DECLARATION} naming both declarations and the subscriber
     */
    static SubscriberTable register(Database database, Connection connection, String table, Clock clock,
            Map<String, Declared> subscriptions) {
        Map<String, String> declarations = new LinkedHashMap<>();
        subscriptions.forEach((queueTable, declared) -> declarations.put(key(queueTable), declared.text()));
        boolean available = !declarations.isEmpty() && OptionalTables.present(connection, database.dialect(), table, "subscriber");
        SubscriberTable subscribers = new SubscriberTable(database, table, clock, declarations, available);
        if (!declarations.isEmpty() && !available) {
            LOG.log(Level.INFO, "Inbox: there is no subscriber table {0}, so a broker elsewhere that reads tables {1}"
                    + " with another claim form or payload type is not detected; create it"
                    + " (InboxSchema.subscriberTable())", table, declarations.keySet());
        }
        if (available) {
            try {
                for (Map.Entry<String, Declared> entry : subscriptions.entrySet()) {
                    subscribers.claim(connection, entry.getKey(), entry.getValue());
                }
            } catch (SQLException e) {
                subscribers.deleteOwn(connection);
                throw new InboxException(Kind.DATABASE, "writing the subscriptions' declarations to table " + table
                        + " failed: " + database.redact(String.valueOf(e.getMessage())), e);
            } catch (RuntimeException e) {
                subscribers.deleteOwn(connection);
                throw e;
            }
        }
        return subscribers;
    }

    /** What one subscription declares of its table, and the queue it serves, for the refusal. */
    record Declared(String queue, String text) {}

    /** Table names as most databases compare them: a table described as Jobs and as jobs is one. */
    private static String key(String queueTable) {
        return queueTable.toLowerCase(Locale.ROOT);
    }

    /** The process and a random part: two brokers of one process are two subscribers. */
    private static String subscriberName() {
        String process = ManagementFactory.getRuntimeMXBean().getName(); // pid@host
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        String name = process + "#" + HexFormat.of().formatHex(random);
        return name.length() <= 200 ? name : name.substring(name.length() - 200);
    }

    private void claim(Connection connection, String queueTable, Declared declared) throws SQLException {
        String tableKey = key(queueTable);
        Instant now = dialect.stored(clock.instant());
        try (PreparedStatement stale = connection.prepareStatement("DELETE FROM " + quoted() + " WHERE "
                + column("queue_table") + " = ? AND " + column("seen_at") + " < ?")) {
            stale.setString(1, tableKey);
            dialect.bindTime(stale, 2, dialect.stored(now.minus(STALE)));
            stale.executeUpdate();
        }
        insert(connection, tableKey, declared.text(), now);
        // Written first, read after: of two brokers that open at once with other declarations,
        // each sees the other and both are refused, rather than both running.
        try (PreparedStatement others = connection.prepareStatement("SELECT " + column("subscriber") + ", "
                + column("declaration") + ", " + column("seen_at") + " FROM " + quoted() + " WHERE "
                + column("queue_table") + " = ? AND " + column("subscriber") + " <> ?")) {
            others.setString(1, tableKey);
            others.setString(2, subscriber);
            try (ResultSet rs = others.executeQuery()) {
                while (rs.next()) {
                    String theirs = rs.getString(2);
                    if (!theirs.equals(declared.text())) {
                        throw refusal(queueTable, declared, rs.getString(1), theirs, dialect.readTime(rs, 3));
                    }
                }
            }
        }
    }

    private void insert(Connection connection, String tableKey, String declaration, Instant now) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + quoted() + " ("
                + column("queue_table") + ", " + column("subscriber") + ", " + column("declaration") + ", "
                + column("seen_at") + ") VALUES (?, ?, ?, ?)")) {
            insert.setString(1, tableKey);
            insert.setString(2, subscriber);
            insert.setString(3, declaration);
            dialect.bindTime(insert, 4, now);
            insert.executeUpdate();
        }
    }

    private InboxException refusal(String queueTable, Declared declared, String other, String theirs, Instant seen) {
        return new InboxException(Kind.DECLARATION, "queue " + declared.queue() + ": table " + queueTable
                + " is read by subscriber " + other + " (" + theirs + ", seen at " + seen + "), and this broker"
                + " declares " + declared.text() + ". Two declarations of one table take each other's rows (another"
                + " claim form misses the other's claims, another payload type dead-letters the other's rows):"
                + " describe the table alike in every application that reads it, or give each its own table. If that"
                + " subscriber is gone, delete its rows from table " + table + ", or wait until it has not been seen"
                + " for " + STALE.toMinutes() + " minutes");
    }

    /** Refreshes this broker's rows every heartbeat from now on. */
    synchronized void start(Threads pool) {
        if (!available) {
            return;
        }
        threads = pool;
        later();
    }

    private void later() {
        try {
            threads.schedule(HEARTBEAT, () -> threads.run("inbox-subscribers", this::beat));
        } catch (RuntimeException e) {
            // The threads stopped before the broker did: the rows go stale and the next opener deletes them.
            LOG.log(Level.DEBUG, "Inbox: the subscriber table''s heartbeat ends: {0}", e.toString());
        }
    }

    private void beat() {
        if (stopped) {
            return;
        }
        Instant now = dialect.stored(clock.instant());
        try (Connection connection = database.open();
                PreparedStatement update = connection.prepareStatement("UPDATE " + quoted() + " SET "
                        + column("seen_at") + " = ? WHERE " + column("queue_table") + " = ? AND "
                        + column("subscriber") + " = ?")) {
            update.setQueryTimeout(STATEMENT_SECONDS);
            for (Map.Entry<String, String> declaration : declarations.entrySet()) {
                dialect.bindTime(update, 1, now);
                update.setString(2, declaration.getKey());
                update.setString(3, subscriber);
                if (update.executeUpdate() == 0 && !stopped) {
                    // Taken for gone (the database or this host paused for longer than STALE): declared again.
                    LOG.log(Level.WARNING, "Inbox: the declaration of table {0} in subscriber table {1} was deleted"
                            + " as stale; writing it again", declaration.getKey(), table);
                    insert(connection, declaration.getKey(), declaration.getValue(), now);
                }
            }
        } catch (SQLException e) {
            LOG.log(Level.DEBUG, "Inbox: refreshing subscriber table {0} failed: {1}", table,
                    database.redact(String.valueOf(e.getMessage())));
        }
        if (!stopped) {
            later();
        }
    }

    /**
     * Deletes this broker's rows, where {@code deadline} ({@link System#nanoTime()}) has not passed:
     * its tables may be read another way from now on. After the deadline they are left to go stale,
     * since a connection may then be long in coming.
     */
    void stop(long deadline) {
        stopped = true;
        if (!available) {
            return;
        }
        if (System.nanoTime() - deadline > 0) {
            LOG.log(Level.INFO, "Inbox: the shutdown ran out of time, so the declarations of subscriber {0} stay in"
                    + " table {1} until they have not been seen for {2} minutes", subscriber, table, STALE.toMinutes());
            return;
        }
        try (Connection connection = database.open()) {
            deleteOwn(connection);
        } catch (SQLException e) {
            left(e);
        }
    }

    private void deleteOwn(Connection connection) {
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + quoted() + " WHERE "
                + column("subscriber") + " = ?")) {
            delete.setQueryTimeout(STATEMENT_SECONDS);
            delete.setString(1, subscriber);
            delete.executeUpdate();
        } catch (SQLException e) {
            left(e);
        }
    }

    private void left(SQLException e) {
        LOG.log(Level.WARNING, "Inbox: the declarations of subscriber {0} stay in table {1} until they have not been"
                + " seen for {2} minutes: {3}", subscriber, table, STALE.toMinutes(),
                database.redact(String.valueOf(e.getMessage())));
    }

    private String quoted() {
        return dialect.quote(table);
    }

    private String column(String name) {
        return dialect.quote(name);
    }
}
