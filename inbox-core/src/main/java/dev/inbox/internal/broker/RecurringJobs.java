package dev.inbox.internal.broker;

import dev.inbox.InboxException;
import dev.inbox.PublishOptions;
import dev.inbox.Publisher;
import dev.inbox.RecurringJob;
import dev.inbox.RecurringSchedule;
import dev.inbox.ShutdownReport;
import dev.inbox.internal.jdbc.Database;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.task.Service;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
public final class RecurringJobs implements Service {
    private static final System.Logger LOG = System.getLogger(RecurringJobs.class.getName());
    /** How long a server leaves a job alone that another server's declaration runs. */
    private static final Duration DEFERRED = Duration.ofMinutes(1);

    private final Database database;
    private final Dialect dialect;
    private final String table;
    private final Clock clock;
    private final Duration retryInterval;
    private final List<Entry> entries;
    /** Every job declared here, by name: those disabled by this server's configuration too. */
    private final Map<String, RecurringJob<?>> declared;
    /** The schedule table's statements; null where no job runs here, and the table need not be there. */
    private ScheduleRows rows;
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

    private RecurringJobs(Database database, String table, Clock clock, Duration retryInterval, List<Entry> entries,
            Map<String, RecurringJob<?>> declared) {
        this.database = database;
        this.dialect = database.dialect();
        this.table = table;
        this.clock = clock;
        this.retryInterval = retryInterval;
        this.entries = entries;
        this.declared = declared;
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
        Map<String, RecurringJob<?>> declared = new LinkedHashMap<>();
        for (RecurringJob<?> job : jobs) {
            if (declared.putIfAbsent(job.name(), job) != null) {
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
        RecurringJobs recurring = new RecurringJobs(database, table, clock, retryInterval, entries, declared);
        if (!entries.isEmpty()) {
            recurring.rows = ScheduleRows.open(recurring.dialect, connection, table);
            for (Entry entry : entries) {
                recurring.seed(connection, entry);
            }
        }
        return recurring;
    }

    /** Reads the job's row; writes it where missing, or where another expression left it. */
    private void seed(Connection connection, Entry entry) throws SQLException {
        String name = entry.job.name();
        ScheduleRows.Row row = rows.read(connection, name);
        String text = entry.schedule.text();
        if (row == null) {
            try {
                rows.insert(connection, name, text, entry.schedule.nextAfter(clock.instant()));
            } catch (SQLException e) {
                // Another server wrote it first; its row serves.
                if (rows.read(connection, name) == null) {
                    throw e;
                }
            }
            row = rows.read(connection, name);
        } else if (!row.cron().equals(text)) {
            rows.rewrite(connection, name, text, entry.schedule.nextAfter(clock.instant()), row.cron());
            LOG.log(Level.INFO, "Inbox: recurring job {0} now runs on \"{1}\" (the schedule table had \"{2}\")",
                    name, text, row.cron());
            row = rows.read(connection, name);
        }
        entry.due = row.due();
        LOG.log(Level.INFO, "Inbox: recurring job {0} (\"{1}\") publishes into queue {2}; next at {3}{4}",
                name, text, entry.job.queue(), entry.due, row.disabledAt() == null ? ""
                        : " once enabled (disabled on every server since " + row.disabledAt() + ")");
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
                if (!rows.advance(connection, entry.job.name(), text, due, next)) {
                    return false;
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
            ScheduleRows.Row row = rows.read(connection, entry.job.name());
            if (row == null) {
                throw new InboxException(InboxException.Kind.SCHEMA, "the row of recurring job " + entry.job.name()
                        + " left the schedule table " + table + "; restart the application to write it again");
            }
            if (row.disabledAt() != null) {
                entry.due = max(row.due(), clock.instant().plus(retryInterval)); // read again until enabled
            } else if (!row.cron().equals(text)) {
                // Another server started with another expression; it publishes until this one restarts.
                if (!row.cron().equals(entry.deferredTo)) {
                    entry.deferredTo = row.cron();
                    LOG.log(Level.WARNING, "Inbox: recurring job {0} runs on \"{1}\" in the schedule table, not on"
                            + " \"{2}\" as declared here: the server that wrote it publishes; restart this one to"
                            + " take its declaration back", entry.job.name(), row.cron(), text);
                }
                entry.due = max(row.due(), clock.instant().plus(DEFERRED));
            } else {
                entry.deferredTo = null;
                entry.due = row.due();
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

    /** The jobs declared here, with their rows in the schedule table. */
    public List<RecurringSchedule> list() {
        try (Connection connection = database.open()) {
            List<RecurringSchedule> list = new ArrayList<>();
            for (RecurringJob<?> job : declared.values()) {
                ScheduleRows.Row row = rows(connection).read(connection, job.name());
                list.add(new RecurringSchedule(job.name(), job.queue(), row == null ? null : row.cron(),
                        row == null ? null : row.due(), row == null ? null : row.disabledAt(), job.enabled()));
            }
            return list;
        } catch (SQLException e) {
            throw failed("reading", e);
        }
    }

    /** Disables job {@code name} on every server (an operator's); disabling a disabled job changes nothing. */
    public void disable(String name) {
        RecurringJob<?> job = known(name);
        try (Connection connection = database.open()) {
            if (rows(connection).disable(connection, name, clock.instant())) {
                LOG.log(Level.INFO, "Inbox: recurring job {0} disabled on every server", job.name());
            }
        } catch (SQLException e) {
            throw failed("disabling job " + name + " in", e);
        }
    }

    /** Enables job {@code name} again from its next occurrence after now. */
    public void enable(String name) {
        RecurringJob<?> job = known(name);
        Instant next = CronSchedule.of(job).nextAfter(clock.instant());
        try (Connection connection = database.open()) {
            if (rows(connection).enable(connection, name, next)) {
                entries.stream().filter(e -> e.job == job).forEach(e -> e.due = dialect.stored(next));
                LOG.log(Level.INFO, "Inbox: recurring job {0} enabled again; next at {1}", job.name(), next);
            }
        } catch (SQLException e) {
            throw failed("enabling job " + name + " in", e);
        }
    }

    /** Publishes one occurrence of job {@code name}, due now, on a connection that joins the caller's transaction. */
    public void trigger(String name) {
        RecurringJob<?> job = known(name);
        Instant now = dialect.stored(clock.instant());
        try (Connection connection = database.open()) {
            publish(connection, job, now);
        } catch (SQLException e) {
            throw failed("publishing an occurrence of job " + name + " beside", e);
        }
        wake.accept(job.queue());
        LOG.log(Level.INFO, "Inbox: recurring job {0} published an occurrence of {1} on an operator''s word",
                job.name(), now);
    }

    private RecurringJob<?> known(String name) {
        RecurringJob<?> job = declared.get(name);
        if (job == null) {
            throw new InboxException(InboxException.Kind.NOT_FOUND, "recurring job " + name + " is not declared on"
                    + " this broker" + (declared.isEmpty() ? ", which declares none" : "; it declares "
                    + declared.keySet()));
        }
        return job;
    }

    /** The schedule table, checked when first needed where no job runs here. */
    private synchronized ScheduleRows rows(Connection connection) {
        if (rows == null) {
            rows = ScheduleRows.open(dialect, connection, table);
        }
        return rows;
    }

    private InboxException failed(String what, SQLException e) {
        return new InboxException(InboxException.Kind.DATABASE, "recurring jobs: " + what + " the schedule table "
                + table + " failed: " + database.redact(e.getMessage()), e);
    }

    /** The names of the jobs this broker evaluates, with their next due times, for health and operators. */
    List<String> describe() {
        return entries.stream().map(e -> e.job.name() + " next at " + e.due).toList();
    }
}
