package dev.inbox.internal.broker;

import dev.inbox.InboxException;
import dev.inbox.PublishOptions;
import dev.inbox.Publisher;
import dev.inbox.RecurringJob;
import dev.inbox.ShutdownReport;
import dev.inbox.internal.jdbc.Database;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.task.Service;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The broker's recurring jobs, evaluated against a schedule table every server on the database
 * shares ({@code name} primary key, {@code cron}, {@code next_due}). When an occurrence is due, the
 * broker moves {@code next_due} on with an update conditional on the due time it read, and
 * publishes the occurrence in the same transaction: of any number of servers, the one whose update
 * changed the row publishes, the others read the new due time. No leader is elected. The next due
 * time is the first one after the moment of publishing, so after downtime the missed occurrences
 * are published once (carrying the first missed due time). A server that starts with another
 * cron expression (or zone) than the table holds writes its own and the due time that follows.
 */
final class RecurringJobs implements Service {
    private static final System.Logger LOG = System.getLogger(RecurringJobs.class.getName());
    /** How long a server leaves a job alone that another server's declaration runs. */
    private static final Duration DEFERRED = Duration.ofMinutes(1);

    private final Database database;
    private final Dialect dialect;
    private final String table;
    private final Clock clock;
    private final Duration retryInterval;
    private final List<Entry> entries;
    private Threads threads;
    private BiFunction<String, Class<?>, Publisher<?>> publishers;
    private Consumer<String> wake;
    private volatile boolean stopped;
    private boolean failing;

    /** One recurring job on this broker, and the due time it last read. */
    private static final class Entry {
        final RecurringJob<?> job;
        final CronSchedule schedule;
        volatile Instant due;
        /** The expression another server wrote, once this one has said so; null while the row holds this one's. */
        String deferredTo;

        Entry(RecurringJob<?> job) {
            this.job = job;
            this.schedule = CronSchedule.of(job);
        }
    }

    private RecurringJobs(Database database, String table, Clock clock, Duration retryInterval, List<Entry> entries) {
        this.database = database;
        this.dialect = database.dialect();
        this.table = table;
        this.clock = clock;
        this.retryInterval = retryInterval;
        this.entries = entries;
    }

    /**
     * Checks the jobs and the schedule table, and writes each enabled job's row where it lacks one
     * or holds another expression.
     *
     * @throws InboxException {@code DECLARATION} for a bad expression, a name twice or an unknown
     *                        queue; {@code SCHEMA} for a missing schedule table, naming its DDL
     */
    static RecurringJobs open(Database database, Connection connection, String table, List<RecurringJob<?>> jobs,
            Set<String> queues, Clock clock, Duration retryInterval) throws SQLException {
        List<Entry> entries = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (RecurringJob<?> job : jobs) {
            if (!names.add(job.name())) {
                throw new InboxException(InboxException.Kind.DECLARATION, "recurring job " + job.name()
                        + " is declared twice on this broker: give each its own name");
            }
            if (!queues.contains(job.queue())) {
                throw new InboxException(InboxException.Kind.DECLARATION, "recurring job " + job.name()
                        + " publishes into queue " + job.queue() + ", which this broker neither routes nor subscribes"
                        + " to: route it (broker.route(\"" + job.queue() + "\", Table.class)) before connect()");
            }
            Entry entry = new Entry(job);
            if (job.enabled()) {
                entries.add(entry);
            } else {
                LOG.log(Level.INFO, "Inbox: recurring job {0} is disabled by configuration on this server",
                        job.name());
            }
        }
        RecurringJobs recurring = new RecurringJobs(database, table, clock, retryInterval, entries);
        if (!entries.isEmpty()) {
            recurring.checkTable(connection);
            for (Entry entry : entries) {
                recurring.seed(connection, entry);
            }
        }
        return recurring;
    }

    private void checkTable(Connection connection) {
        String probe = "SELECT " + column("name") + ", " + column("cron") + ", " + column("next_due") + " FROM "
                + dialect.quote(table) + " WHERE 1 = 0";
        try (Statement s = connection.createStatement()) {
            s.executeQuery(probe).close();
        } catch (SQLException e) {
            throw new InboxException(InboxException.Kind.SCHEMA, "the schedule table " + table + " of the recurring"
                    + " jobs is not there or lacks columns (" + e.getMessage().trim() + "): create it as README shows,"
                    + " such as CREATE TABLE " + table + " (name VARCHAR(200) PRIMARY KEY, cron VARCHAR(200) NOT NULL,"
                    + " next_due " + timeType() + " NOT NULL)", e);
        }
    }

    /**
     * The time type of the built-in dialects' tables; for a dialect of the user's, words, as the
     * pause table's message has them.
     */
    private String timeType() {
        return switch (dialect.name()) {
            case "postgresql" -> "TIMESTAMPTZ";
            case "sqlite" -> "TEXT";
            case "mysql" -> "DATETIME";
            default -> "<the time type of your queue tables>";
        };
    }

    private String column(String name) {
        return dialect.quote(name);
    }

    /** Reads the job's row; writes it where missing, or where another expression left it. */
    private void seed(Connection connection, Entry entry) throws SQLException {
        Row row = read(connection, entry);
        String text = entry.schedule.text();
        if (row == null) {
            Instant first = entry.schedule.nextAfter(clock.instant());
            try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + dialect.quote(table) + " ("
                    + column("name") + ", " + column("cron") + ", " + column("next_due") + ") VALUES (?, ?, ?)")) {
                ps.setString(1, entry.job.name());
                ps.setString(2, text);
                dialect.bindTime(ps, 3, dialect.stored(first));
                ps.executeUpdate();
            } catch (SQLException e) {
                // Another server wrote it first; its row serves.
                row = read(connection, entry);
                if (row == null) {
                    throw e;
                }
            }
            row = read(connection, entry);
        } else if (!row.cron.equals(text)) {
            Instant next = entry.schedule.nextAfter(clock.instant());
            try (PreparedStatement ps = connection.prepareStatement("UPDATE " + dialect.quote(table) + " SET "
                    + column("cron") + " = ?, " + column("next_due") + " = ? WHERE " + column("name") + " = ? AND "
                    + column("cron") + " = ?")) {
                ps.setString(1, text);
                dialect.bindTime(ps, 2, dialect.stored(next));
                ps.setString(3, entry.job.name());
                ps.setString(4, row.cron);
                ps.executeUpdate();
            }
            LOG.log(Level.INFO, "Inbox: recurring job {0} now runs on \"{1}\" (the schedule table had \"{2}\")",
                    entry.job.name(), text, row.cron);
            row = read(connection, entry);
        }
        entry.due = row.due;
        LOG.log(Level.INFO, "Inbox: recurring job {0} (\"{1}\") publishes into queue {2}; next at {3}",
                entry.job.name(), text, entry.job.queue(), entry.due);
    }

    private record Row(String cron, Instant due) {}

    private Row read(Connection connection, Entry entry) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT " + column("cron") + ", " + column("next_due")
                + " FROM " + dialect.quote(table) + " WHERE " + column("name") + " = ?")) {
            ps.setString(1, entry.job.name());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Row(rs.getString(1), dialect.readTime(rs, 2)) : null;
            }
        }
    }

    /** The occurrences go through {@code publisherOf}'s publishers, and wake the queue they went into. */
    synchronized void publishThrough(BiFunction<String, Class<?>, Publisher<?>> publisherOf,
            Consumer<String> wakeQueue) {
        this.publishers = publisherOf;
        this.wake = wakeQueue;
    }

    /** Starts evaluating the schedule. */
    @Override
    public synchronized void start(Threads threadPool) {
        if (entries.isEmpty()) {
            return;
        }
        this.threads = threadPool;
        threads.run("inbox-recurring", this::tick);
    }

    /** No occurrence is published once this returns, but one in its transaction may still commit. */
    @Override
    public ShutdownReport stop(long deadline) {
        stopped = true;
        return ShutdownReport.NONE;
    }

    @Override
    public String toString() {
        return "the recurring jobs";
    }

    /** Publishes the occurrences due, then sleeps until the next one. */
    private void tick() {
        if (stopped) {
            return;
        }
        boolean failed = false;
        Instant now = clock.instant();
        for (Entry entry : entries) {
            if (!stopped && !now.isBefore(entry.due)) {
                failed |= !fire(entry);
            }
        }
        if (!failed && failing) {
            failing = false;
            LOG.log(Level.INFO, "Inbox: the recurring jobs publish again");
        }
        Instant earliest = entries.stream().map(e -> e.due).min(Instant::compareTo).orElseThrow();
        Duration sleep = Duration.between(clock.instant(), earliest);
        if (failed && sleep.compareTo(retryInterval) < 0) {
            sleep = retryInterval;
        }
        if (sleep.isNegative()) {
            sleep = Duration.ZERO;
        } else if (sleep.compareTo(retryInterval) > 0) {
            sleep = retryInterval; // a tick costs no statement until a job is due: a clock set forward is seen soon
        }
        if (!stopped) {
            threads.schedule(sleep, () -> threads.run("inbox-recurring", this::tick));
        }
    }

    /** Publishes the entry's due occurrence unless another server did; false when it could not try. */
    private boolean fire(Entry entry) {
        Instant due = entry.due;
        Instant next = entry.schedule.nextAfter(max(clock.instant(), due));
        String text = entry.schedule.text();
        try (Connection connection = database.open()) {
            boolean published = JdbcTransaction.run(connection, -1, () -> {
                try (PreparedStatement ps = connection.prepareStatement("UPDATE " + dialect.quote(table) + " SET "
                        + column("next_due") + " = ? WHERE " + column("name") + " = ? AND " + column("next_due")
                        + " = ? AND " + column("cron") + " = ?")) {
                    dialect.bindTime(ps, 1, dialect.stored(next));
                    ps.setString(2, entry.job.name());
                    dialect.bindTime(ps, 3, due);
                    ps.setString(4, text);
                    if (ps.executeUpdate() == 0) {
                        return false;
                    }
                }
                publish(connection, entry.job, due);
                return true;
            });
            if (published) {
                entry.due = dialect.stored(next);
                wake.accept(entry.job.queue());
                LOG.log(Level.DEBUG, "Inbox: recurring job {0} published its occurrence of {1}", entry.job.name(),
                        due);
                return true;
            }
            Row row = read(connection, entry);
            if (row == null) {
                throw new InboxException(InboxException.Kind.SCHEMA, "the row of recurring job " + entry.job.name()
                        + " left the schedule table " + table + "; restart the application to write it again");
            }
            if (!row.cron.equals(text)) {
                // Another server started with another expression; it publishes until this one restarts.
                if (!row.cron.equals(entry.deferredTo)) {
                    entry.deferredTo = row.cron;
                    LOG.log(Level.WARNING, "Inbox: recurring job {0} runs on \"{1}\" in the schedule table, not on"
                            + " \"{2}\" as declared here: the server that wrote it publishes; restart this one to"
                            + " take its declaration back", entry.job.name(), row.cron, text);
                }
                entry.due = max(row.due, clock.instant().plus(DEFERRED));
            } else {
                entry.deferredTo = null;
                entry.due = row.due;
            }
            return true;
        } catch (SQLException | RuntimeException e) {
            if (!failing) {
                failing = true;
                LOG.log(Level.WARNING, "Inbox: recurring job " + entry.job.name() + " could not publish its occurrence"
                        + " of " + due + " (" + database.redact(String.valueOf(e.getMessage())) + "); trying again"
                        + " every " + retryInterval.toMillis() + " ms", e);
            }
            return false;
        }
    }

    @SuppressWarnings("unchecked")
    private <T> void publish(Connection connection, RecurringJob<T> job, Instant due) {
        Publisher<T> publisher = (Publisher<T>) publishers.apply(job.queue(), job.payloadType());
        T payload = job.payload(due);
        if (payload == null) {
            throw new InboxException(InboxException.Kind.DECLARATION, "recurring job " + job.name()
                    + " made a null payload for its occurrence of " + due + ": return a value its handler can take");
        }
        publisher.publish(connection, payload, PublishOptions.NONE);
    }

    private static Instant max(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    /** The names of the jobs this broker evaluates, with their next due times, for health and operators. */
    List<String> describe() {
        return entries.stream().map(e -> e.job.name() + " next at " + e.due).toList();
    }
}
