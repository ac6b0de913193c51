package dev.inbox.internal.broker;

import dev.inbox.InboxException;
import dev.inbox.internal.jdbc.Database;
import dev.inbox.spi.Dialect;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The queues an operator paused, kept in a pause table every server on the database shares
 * ({@code queue} primary key, {@code paused_at}). Claim loops ask before each claim; the answer is
 * read from the table at most once per poll interval, so a pause stops claims on every server
 * within one, and costs a claim nothing more than a field read. Without the table (looked for when
 * the broker connects) nothing is ever paused and pausing fails, naming the table to create.
 */
public final class QueuePauses {
    private static final System.Logger LOG = System.getLogger(QueuePauses.class.getName());

    private final Database database;
    private final Dialect dialect;
    private final String table;
    private final String quoted;
    private final long refreshNanos;
    private final Clock clock;
    private final boolean available;
    private final AtomicLong readAt = new AtomicLong(System.nanoTime());
    private volatile Set<String> paused = Set.of();

    /** Looks for {@code table} on {@code connection}, and reads it where it is. */
    QueuePauses(Database database, Connection connection, String table, Duration refresh, Clock clock) {
        this.database = database;
        this.dialect = database.dialect();
        this.table = table;
        this.quoted = dialect.quote(table);
        this.refreshNanos = refresh.toNanos();
        this.clock = clock;
        this.available = OptionalTables.present(connection, dialect, table, "queue");
        if (available) {
            paused = read(connection);
            if (!paused.isEmpty()) {
                LOG.log(Level.INFO, "Inbox: queues {0} are paused (table {1}); resume them to claim", paused, table);
            }
        }
    }

    private String select() {
        return "SELECT " + dialect.quote("queue") + " FROM " + quoted;
    }

    private Set<String> read(Connection connection) {
        Set<String> queues = new HashSet<>();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(select())) {
            while (rs.next()) {
                queues.add(rs.getString(1));
            }
            return Set.copyOf(queues);
        } catch (SQLException e) {
            unreadable(e);
            return paused;
        }
    }

    /** The claim that follows meets the same outage and reports it; the pauses known stay. */
    private void unreadable(SQLException e) {
        LOG.log(Level.DEBUG, "Inbox: reading the pause table {0} failed: {1}", table,
                database.redact(String.valueOf(e.getMessage())));
    }

    /** True while {@code queue} is paused; reads the table first when the last read is a poll interval old. */
    public boolean paused(String queue) {
        if (!available) {
            return false;
        }
        long last = readAt.get();
        long now = System.nanoTime();
        if (now - last >= refreshNanos && readAt.compareAndSet(last, now)) {
            refresh();
        }
        return paused.contains(queue);
    }

    /** Every paused queue, read from the table now (an operator's question, not a claim's). */
    Set<String> all() {
        if (available) {
            readAt.set(System.nanoTime());
            refresh();
        }
        return paused;
    }

    private void refresh() {
        try (Connection connection = database.open()) {
            paused = read(connection);
        } catch (SQLException e) {
            unreadable(e);
        }
    }

    /** Pauses {@code queue} on every server sharing the table; pausing a paused queue changes nothing. */
    void pause(String queue) {
        requireTable("pause");
        try (Connection connection = database.open()) {
            if (!read(connection).contains(queue)) {
                try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + quoted + " ("
                        + dialect.quote("queue") + ", " + dialect.quote("paused_at") + ") VALUES (?, ?)")) {
                    ps.setString(1, queue);
                    dialect.bindTime(ps, 2, dialect.stored(clock.instant()));
                    ps.executeUpdate();
                } catch (SQLException e) {
                    if (!read(connection).contains(queue)) {
                        throw e; // not a pause that another operator wrote at the same moment
                    }
                }
            }
            paused = read(connection);
        } catch (SQLException e) {
            throw failed("pausing queue " + queue, e);
        }
    }

    /** Resumes {@code queue}; resuming a queue that runs changes nothing. */
    void resume(String queue) {
        requireTable("resume");
        try (Connection connection = database.open();
                PreparedStatement ps = connection.prepareStatement("DELETE FROM " + quoted + " WHERE "
                        + dialect.quote("queue") + " = ?")) {
            ps.setString(1, queue);
            ps.executeUpdate();
            paused = read(connection);
        } catch (SQLException e) {
            throw failed("resuming queue " + queue, e);
        }
    }

    private void requireTable(String what) {
        if (!available) {
            throw new InboxException(InboxException.Kind.SCHEMA, "cannot " + what + " a queue: the pause table "
                    + table + " was not there when the broker connected. Create it (CREATE TABLE " + table
                    + " (queue VARCHAR(200) PRIMARY KEY, paused_at <the time type of your queue tables> NOT NULL))"
                    + " and restart the application");
        }
    }

    private InboxException failed(String what, SQLException e) {
        return new InboxException(InboxException.Kind.DATABASE, what + " in table " + table + " failed: "
                + database.redact(String.valueOf(e.getMessage())), e);
    }
}
