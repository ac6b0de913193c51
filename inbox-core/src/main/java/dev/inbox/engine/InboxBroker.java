package dev.inbox.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.BrokerHealth;
import dev.inbox.Cancellation;
import dev.inbox.ConnectionPooler;
import dev.inbox.DeadLetter;
import dev.inbox.DeadLetterFilter;
import dev.inbox.InboxAdmin;
import dev.inbox.InboxException.Kind;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.JobPage;
import dev.inbox.JobQuery;
import dev.inbox.Publisher;
import dev.inbox.QueueStats;
import dev.inbox.QueuedJob;
import dev.inbox.RecurringJob;
import dev.inbox.RecurringSchedule;
import dev.inbox.RunNow;
import dev.inbox.ShutdownReport;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import dev.inbox.internal.broker.BrokerConfig;
import dev.inbox.internal.broker.BrokerDraft;
import dev.inbox.internal.broker.BrokerOpener;
import dev.inbox.internal.broker.BrokerPublishers;
import dev.inbox.internal.broker.CronSchedule;
import dev.inbox.internal.broker.DeadLetterRows;
import dev.inbox.internal.broker.Lifecycle;
import dev.inbox.internal.broker.OpenedBroker;
import dev.inbox.internal.broker.Payloads;
import dev.inbox.internal.codec.JsonbCodec;
import dev.inbox.internal.task.PlatformThreads;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.JobTracing;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.Threads;
import jakarta.json.bind.Jsonb;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The engine's entry point. Configured with no I/O; {@link #connect()} then opens everything
 * (reaches the database, resolves its dialect, checks and prepares every subscription, listens
 * for notifications) and only then starts the subscriptions, so every startup error comes before
 * any row is claimed; {@link #shutdown()} stops it.
 *
 * <pre>{@code
 * InboxBroker broker = InboxBroker.fromUrl("jdbc:postgresql://127.0.0.1/app")
 *         .lease(Duration.ofSeconds(30))
 *         .subscribe(Subscription.of("thumbnails", MakeThumbnail.class, Image.class, handler).workers(4))
 *         .connect();
 * Publisher<Image> thumbnails = broker.publisher("thumbnails", Image.class);
 * thumbnails.publish(new Image("cat.png"));
 * ShutdownReport report = broker.shutdown();
 * }</pre>
 */
public final class InboxBroker implements InboxAdmin, AutoCloseable {
    /** How long {@link #shutdown()} lets deliveries in work settle. */
    public static final Duration DEFAULT_DRAIN = Duration.ofSeconds(30);
    /** The table of paused queues that {@link #pause} writes, unless {@link #pauseTable} names another. */
    public static final String DEFAULT_PAUSE_TABLE = "inbox_paused";
    /** The table of the recurring jobs' due times, unless {@link #scheduleTable} names another. */
    public static final String DEFAULT_SCHEDULE_TABLE = "inbox_schedule";
    /** The table of each queue table's subscribers, unless {@link #subscriberTable} names another. */
    public static final String DEFAULT_SUBSCRIBER_TABLE = "inbox_subscribers";

    private final Lifecycle lifecycle = new Lifecycle();
    /** The configuration, written until {@link #connect()}. */
    private final BrokerDraft draft;
    /** Null: each subscription's own, five poll intervals and at least ten seconds. */
    private volatile Duration stuckAfter;
    private final BrokerPublishers publishers;
    private ShutdownReport report;

    private InboxBroker(String url, Properties driverProperties, DataSource applicationDataSource) {
        this.draft = new BrokerDraft(url, driverProperties, applicationDataSource, lifecycle, DEFAULT_PAUSE_TABLE,
                DEFAULT_SCHEDULE_TABLE, DEFAULT_SUBSCRIBER_TABLE, defaultJson(), new PlatformThreads());
        this.publishers = new BrokerPublishers(lifecycle, draft);
    }

    /** A broker that builds a pool of its own for {@code url}; user and password may be in the URL. */
    public static InboxBroker fromUrl(String url) {
        return new InboxBroker(Objects.requireNonNull(url, "url"), new Properties(), null);
    }

    /** A broker that builds a pool of its own for {@code url}, signing in as {@code user}. */
    public static InboxBroker fromUrl(String url, String user, String password) {
        return new InboxBroker(Objects.requireNonNull(url, "url"), BrokerDraft.credentials(user, password), null);
    }

    /** A broker on the application's pool, which it uses and never closes. */
    public static InboxBroker fromDataSource(DataSource dataSource) {
        return new InboxBroker(null, null, Objects.requireNonNull(dataSource, "dataSource"));
    }

    /** The default JSON mapper: Jackson with java.time support and no default typing. */
    public static ObjectMapper defaultJson() {
        return Payloads.defaultJson();
    }

    /**
     * Checks a recurring job's cron expression and zone as {@link #connect()} would, without a
     * broker: for a deployment that checks its declarations before any broker opens.
     *
     * @throws InboxException {@code DECLARATION} naming the job and what to write instead
     */
    public static void checkRecurring(RecurringJob<?> job) {
        CronSchedule.check(job);
    }

    /** The lease of lease tables whose subscription sets none: whole seconds, at least one, rounded up. */
    public InboxBroker lease(Duration value) {
        return setting(SubscriptionOption.LEASE, value);
    }

    /** How often an idle subscription claims when nothing wakes it. */
    public InboxBroker pollInterval(Duration value) {
        return setting(SubscriptionOption.POLL_INTERVAL, value);
    }

    /**
     * On PostgreSQL, wakes subscriptions at once on rows any process inserts: the broker listens
     * on one connection, and its publishers notify the table's channel. Subscriptions may turn it
     * off or on for themselves.
     */
    public InboxBroker listenNotify(boolean on) {
        return setting(SubscriptionOption.LISTEN_NOTIFY, on);
    }

    /**
     * Sets a {@linkplain SubscriptionOption#brokerWide() broker-wide} option for every subscription
     * that sets none.
     *
     * @throws InboxException {@code DECLARATION} for an option that is not broker-wide or a value out of its range
     */
    public <V> InboxBroker setting(SubscriptionOption<V> option, V value) {
        draft.setting(option, value);
        return this;
    }

    /** The size of the pool a broker built from a URL keeps. */
    public InboxBroker connectionLimit(int connections) {
        draft.connectionLimit(connections);
        return this;
    }

    /**
     * How late a claim loop may be before {@link #health()} reports its subscription not live: a
     * claim that has run this long, a loop that has waited this long for a thread, a poll this
     * late. By default five poll intervals of the subscription, and at least ten seconds. May be
     * set at any time.
     */
    public InboxBroker stuckAfter(Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new InboxException(Kind.DECLARATION, "stuckAfter must be a positive duration, not " + value);
        }
        stuckAfter = value;
        return this;
    }

    /**
     * How long a publish's insert may wait, for a lock another transaction holds on the queue's
     * table or for the database's write lock, before it fails with {@code DATABASE} naming the
     * table and this timeout (default 30 s; whole seconds, from 1 s to 1 h, rounded up). It bounds
     * every publish of the broker's publishers, those through the caller's connection or delivery
     * too, as the JDBC query timeout of the insert; the database's own lock wait (MariaDB's
     * {@code innodb_lock_wait_timeout}, SQLite's busy timeout) no longer decides it.
     *
     * @throws InboxException {@code DECLARATION} for a timeout out of that range
     */
    public InboxBroker publishTimeout(Duration timeout) {
        draft.publishTimeout(timeout);
        return this;
    }

    /** How often the LISTEN connection checks it still hears notifications (default 10 s). */
    public InboxBroker listenProbeInterval(Duration interval) {
        draft.listenProbeInterval(interval);
        return this;
    }

    /**
     * What stands between the broker and its database (default {@code NONE}); a client cannot
     * tell PgBouncer's pooling modes apart, so say so. Behind {@code TRANSACTION} pooling
     * ({@code pool_mode=transaction}) {@link #connect()} refuses the advisory form, a table's
     * declared isolation and, on PostgreSQL, a driver that prepares statements on the server
     * (add {@code prepareThreshold=0} to the URL), and subscriptions that listen poll instead,
     * with one WARNING; {@code SESSION} pooling allows everything.
     *
     * <pre>{@code
     * InboxBroker.fromUrl("jdbc:postgresql://pgbouncer:6432/app?prepareThreshold=0")
     *         .connectionPooler(ConnectionPooler.TRANSACTION)
     * }</pre>
     */
    public InboxBroker connectionPooler(ConnectionPooler pooler) {
        draft.connectionPooler(pooler);
        return this;
    }

    /**
     * The table of paused queues ({@code queue VARCHAR(200) PRIMARY KEY, paused_at} a time), shared
     * by every server on the database; default {@value #DEFAULT_PAUSE_TABLE}. Where it does not exist
     * when the broker connects, nothing is paused and {@link #pause} fails naming it.
     */
    public InboxBroker pauseTable(String table) {
        draft.pauseTable(table);
        return this;
    }

    /**
     * The table of the recurring jobs' next due times ({@code name VARCHAR(200) PRIMARY KEY,
     * cron VARCHAR(200), next_due} a time), shared by every server on the database; default
     * {@value #DEFAULT_SCHEDULE_TABLE}. Needed where the broker has recurring jobs.
     */
    public InboxBroker scheduleTable(String table) {
        draft.scheduleTable(table);
        return this;
    }

    /**
     * The table where each broker declares how it reads each queue table it subscribes to (claim
     * form and payload type), shared by every server on the database; default
     * {@value #DEFAULT_SUBSCRIBER_TABLE}, written by {@code InboxSchema.subscriberTable()}. Where
     * it exists, {@link #connect()} refuses a subscription whose table a live broker elsewhere
     * reads another way; where it does not, nothing is checked.
     */
    public InboxBroker subscriberTable(String table) {
        draft.subscriberTable(table);
        return this;
    }

    /**
     * Publishes {@code job} into its queue at each occurrence of its cron expression, once per
     * occurrence across every server that declares it on the same database (see {@link RecurringJob}).
     * Its queue must be routed or subscribed on this broker.
     *
     * @throws InboxException {@code DECLARATION} for a name given twice
     */
    public InboxBroker recurring(RecurringJob<?> job) {
        draft.recurring(job);
        return this;
    }

    /** A dialect for a database the built-ins do not serve; tried before them. */
    public InboxBroker dialect(Dialect userDialect) {
        draft.dialect(userDialect);
        return this;
    }

    /**
     * Told the queue of rows this broker's publishers made visible (committed) where no
     * subscription of this broker takes the queue, so that the process can wake the broker that
     * does: the resource adapter wakes a message-driven bean's subscription this way. Runs on the
     * publishing thread; keep it quick.
     */
    public InboxBroker wakeElsewhere(Consumer<String> wake) {
        draft.wakeElsewhere(wake);
        return this;
    }

    /** The clock that judges due rows and leases (the host's UTC clock by default). */
    public InboxBroker clock(Clock value) {
        draft.clock(value);
        return this;
    }

    /**
     * The Jackson mapper for payloads and headers. Never enable default typing on it: payloads are
     * decoded into the declared type only.
     */
    public InboxBroker json(ObjectMapper mapper) {
        draft.json(mapper);
        return this;
    }

    /**
     * Payloads through the application's JSON-B instead of Jackson, for instance
     * {@code broker.jsonb(JsonbBuilder.create(new JsonbConfig().withPropertyNamingStrategy(...)))}.
     * Each payload type must be one JSON-B constructs (a record, a public or protected no-argument
     * constructor, or a {@code @JsonbCreator}); opening a subscription or making a publisher fails
     * with {@code DECLARATION} otherwise. JSON-B sets no document limit, so a payload is limited by
     * the payload column alone. Headers are Inbox's own format and stay on the Jackson mapper of
     * {@link #json}. The broker does not close {@code jsonb}.
     */
    public InboxBroker jsonb(Jsonb jsonb) {
        draft.payloads(new JsonbCodec(jsonb));
        return this;
    }

    /** Runs claim loops, keepers and workers; the resource adapter passes its WorkManager here. */
    public InboxBroker threads(Threads value) {
        draft.threads(value);
        return this;
    }

    /**
     * Runs every delivery (decoding, handler, settlement) inside the application's context; in a
     * server, {@code ContextService.currentContextExecutor()} captured on an application thread.
     */
    public InboxBroker handlerContext(Executor context) {
        draft.handlerContext(context);
        return this;
    }

    /**
     * How transactional deliveries open their transaction, and how a publisher learns that the
     * transaction it joined committed: JDBC on the broker's pool by default, JTA in a server.
     */
    public InboxBroker deliveryTransactions(DeliveryTransactions transactions) {
        draft.deliveryTransactions(transactions);
        return this;
    }

    public InboxBroker listener(BrokerListener value) {
        draft.listener(value);
        return this;
    }

    /**
     * Traces every publish and delivery with {@code value}, chosen here once: OpenTelemetry's
     * with {@code tracing(OpenTelemetryTracing.of(openTelemetry))} of the inbox-opentelemetry
     * module. None by default.
     */
    public InboxBroker tracing(JobTracing value) {
        draft.tracing(value);
        return this;
    }

    /** Binds {@code queue} to the table {@code spec} describes, for publishers of a queue with no subscription here. */
    public InboxBroker route(String queue, InboxSpec spec) {
        draft.route(queue, spec);
        return this;
    }

    /** Binds {@code queue} to the table an {@code @InboxTable} record describes. */
    public InboxBroker route(String queue, Class<?> tableRecord) {
        return route(queue, InboxSpec.of(tableRecord));
    }

    /**
     * Adds a subscription, opened by {@link #connect()}; its declaration is checked here.
     *
     * @throws InboxException {@code DECLARATION} for a declaration that cannot work, or a second
     *                        subscription to one queue; {@code LIFECYCLE} after {@code connect()}
     */
    public InboxBroker subscribe(Subscription<?> subscription) {
        draft.subscribe(subscription);
        return this;
    }

    /**
     * Reaches the database, resolves its dialect, opens every queue and subscription and listens
     * where they listen; once all of that succeeded, starts the subscriptions. A failure leaves
     * nothing claimed and no handler called, and closes a pool the broker built.
     *
     * @throws InboxException {@code URL}, {@code CONNECT}, {@code BACKEND}, any startup error of a
     *                        subscription, or {@code LIFECYCLE} when called twice
     */
    public InboxBroker connect() {
        BrokerConfig config = draft.seal();
        OpenedBroker opened;
        try {
            opened = BrokerOpener.open(config);
            lifecycle.opened(opened);
            opened.start(config.threads(), publishers::of);
        } catch (RuntimeException | Error e) {
            lifecycle.close();
            report = ShutdownReport.NONE;
            throw e;
        }
        return this;
    }

    /**
     * A publisher for {@code queue}, which must be routed or subscribed on this broker. It may be
     * taken before {@code connect()} and publishes once the broker has connected.
     *
     * @throws InboxException {@code DECLARATION} for a queue the broker does not know, or a payload
     *                        type Jackson cannot construct (it could be published, but never handled)
     */
    public <T> Publisher<T> publisher(String queue, Class<T> payloadType) {
        return publishers.of(queue, payloadType);
    }

    /**
     * The dead letters of {@code queue}, newest first, at most {@code limit}, each with the head of
     * its payload ({@link DeadLetter#PREVIEW} characters at most) and its whole length: the
     * database sends no more. {@link #deadLetter} reads one with more.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue this broker does not subscribe to with a
     *                        dead-letter table
     */
    @Override
    public List<DeadLetter> deadLetters(String queue, int limit) {
        return deadLetterRows(queue, "list dead letters").list(limit);
    }

    /**
     * Dead letter {@code id} of {@code queue} with at most {@code characters} of its payload (bytes,
     * for a binary payload column): the database sends no more, so a cap keeps a payload of any size
     * from filling the heap. {@link DeadLetter#payloadCut()} says whether it holds the whole.
     *
     * @throws InboxException {@code NOT_FOUND} as {@link #retryDeadLetter} does
     */
    @Override
    public DeadLetter deadLetter(String queue, Object id, int characters) {
        return deadLetterRows(queue, "read a dead letter").one(id, characters);
    }

    /**
     * Moves dead letter {@code id} of {@code queue} back into the queue: its payload and headers
     * become a new job on its first attempt (with the same id where the table does not generate
     * ids), in the transaction that deletes the dead row.
     *
     * @throws InboxException {@code NOT_FOUND} for an unknown queue, or an id its dead-letter table
     *                        does not hold (never there, or retried or deleted already)
     */
    @Override
    public void retryDeadLetter(String queue, Object id) {
        deadLetterRows(queue, "retry a dead letter").retry(id);
    }

    /**
     * Deletes dead letter {@code id} of {@code queue}.
     *
     * @throws InboxException {@code NOT_FOUND} as {@link #retryDeadLetter} does
     */
    @Override
    public void deleteDeadLetter(String queue, Object id) {
        deadLetterRows(queue, "delete a dead letter").delete(id);
    }

    /**
     * Moves the dead letters of {@code queue} that {@code filter} takes back into it, each in a
     * transaction of its own (inside the caller's, in that one), and answers how many moved.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue without a dead-letter table here
     */
    @Override
    public int retryDeadLetters(String queue, DeadLetterFilter filter) {
        return deadLetterRows(queue, "retry dead letters").retryAll(Objects.requireNonNull(filter, "filter"));
    }

    /**
     * Deletes the dead letters of {@code queue} that {@code filter} takes, and answers how many.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue without a dead-letter table here
     */
    @Override
    public int deleteDeadLetters(String queue, DeadLetterFilter filter) {
        return deadLetterRows(queue, "delete dead letters").deleteAll(Objects.requireNonNull(filter, "filter"));
    }

    /**
     * Pauses {@code queue}: its claims stop on every server sharing the database within one poll
     * interval; deliveries in work finish. Pausing a paused queue changes nothing.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue this broker does not know; {@code SCHEMA}
     *                        where the pause table was missing when the broker connected
     */
    @Override
    public void pause(String queue) {
        lifecycle.running("pause a queue").pause(queue);
    }

    /** Resumes {@code queue} on every server within one poll interval (here at once); as {@link #pause} fails. */
    @Override
    public void resume(String queue) {
        lifecycle.running("resume a queue").resume(queue);
    }

    /** The queues paused now, read from the pause table (empty without the table). */
    @Override
    public java.util.Set<String> paused() {
        return lifecycle.running("list paused queues").paused();
    }

    private DeadLetterRows deadLetterRows(String queue, String what) {
        OpenedBroker opened = lifecycle.running(what);
        return opened.deadLetters(Objects.requireNonNull(queue, "queue"), publishers.ofRows(queue), draft.json());
    }

    /** What each queue this broker routes holds now, by queue name. */
    @Override
    public Map<String, QueueStats> stats() {
        return lifecycle.running("read the queues' stats").stats();
    }

    /**
     * How the broker is doing, for health checks: whether it runs, whether each subscription's
     * claims succeed (ready) and come round (live), and whether it listens where it should. Reads
     * what the loops recorded; it does not touch the database.
     */
    public BrokerHealth health() {
        OpenedBroker opened = lifecycle.opened();
        if (lifecycle.isClosed() || opened == null) {
            return BrokerHealth.notRunning();
        }
        return opened.health(stuckAfter);
    }

    /** Wakes the local subscription of {@code queue}, if any: rows were written to its table by other means. */
    public void wake(String queue) {
        OpenedBroker opened = lifecycle.opened();
        if (opened != null) {
            opened.wake(queue);
        }
    }

    /**
     * Cancels job {@code id} of {@code queue}: a job waiting (due or delayed) is deleted and no
     * handler takes it; a job in work is left to its handler, which is not interrupted. Works on
     * every server sharing the database, for every claim form (in the advisory form on SQLite, whose
     * locks live in the process, only against deliveries of this process). In a lease table without
     * a {@code retry_after} column a delayed job keeps its due time in the lease column, and so
     * reads as in work until it is due.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue this broker does not know, {@code DATABASE}
     *                        when the statements fail
     */
    @Override
    public Cancellation cancel(String queue, Object id) {
        return lifecycle.running("cancel a job").cancel(queue, Objects.requireNonNull(id, "id"));
    }

    /**
     * One page of {@code queue}'s unfinished jobs that {@code query} selects, in the order of their
     * ids, as any server sees them in the table.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue this broker does not know, {@code DECLARATION}
     *                        for failing jobs without a {@code @LastError} column or jobs in work
     *                        outside the lease form
     */
    @Override
    public JobPage jobs(String queue, JobQuery query) {
        return lifecycle.running("list jobs").jobs(Objects.requireNonNull(queue, "queue"))
                .page(Objects.requireNonNull(query, "query"));
    }

    /** Job {@code id} of {@code queue} with at most {@code characters} of its payload, if it is unfinished. */
    @Override
    public Optional<QueuedJob> job(String queue, Object id, int characters) {
        return lifecycle.running("read a job").jobs(Objects.requireNonNull(queue, "queue"))
                .one(Objects.requireNonNull(id, "id"), characters);
    }

    /**
     * Makes scheduled job {@code id} of {@code queue} due now (its {@code retry_after} time cut
     * short) unless a lease holds it, and wakes the queue; every server's workers may take it.
     */
    @Override
    public RunNow runNow(String queue, Object id) {
        return lifecycle.running("run a job now").jobs(Objects.requireNonNull(queue, "queue"))
                .runNow(Objects.requireNonNull(id, "id"));
    }

    /** The recurring jobs declared on this broker, with their next occurrence as the schedule table holds it. */
    @Override
    public List<RecurringSchedule> recurringJobs() {
        return lifecycle.running("list its recurring jobs").recurring().list();
    }

    /**
     * Stops publishing recurring job {@code name} on every server sharing the schedule table,
     * within one poll interval, until it is enabled again.
     *
     * @throws InboxException {@code NOT_FOUND} for a job this broker does not declare, {@code SCHEMA}
     *                        where the schedule table has no {@code disabled_at} column
     */
    @Override
    public void disableRecurring(String name) {
        lifecycle.running("disable a recurring job").recurring().disable(Objects.requireNonNull(name, "name"));
    }

    /** Publishes recurring job {@code name} again from its next occurrence after now; as {@link #disableRecurring} fails. */
    @Override
    public void enableRecurring(String name) {
        lifecycle.running("enable a recurring job").recurring().enable(Objects.requireNonNull(name, "name"));
    }

    /** Publishes one occurrence of recurring job {@code name} now, its schedule left as it was. */
    @Override
    public void triggerRecurring(String name) {
        lifecycle.running("trigger a recurring job").recurring().trigger(Objects.requireNonNull(name, "name"));
    }

    /** The dialect resolved at connect, for logs and tests. */
    public String dialectName() {
        return lifecycle.running("name its dialect").dialectName();
    }

    /** For tests: the LISTEN connection stops hearing, as behind a pooler that dropped its LISTEN. */
    void silenceListener() {
        lifecycle.running("silence its listener").silenceListener();
    }

    /** For tests: how many times the LISTEN connection connected. */
    int listenerConnects() {
        return lifecycle.running("count its listener's connects").listenerConnects();
    }

    /** {@link #shutdown(Duration)} with a 30 second drain. */
    public ShutdownReport shutdown() {
        return shutdown(DEFAULT_DRAIN);
    }

    /**
     * Sets the closed flag (every publisher now fails with {@code CLOSED}), stops the claim loops,
     * keepers and listener, lets deliveries in work settle until {@code drainTimeout}, gives back
     * the rows of handlers still running then, and closes a pool the broker built. Every part
     * stops at once, under this one deadline: it returns within {@code drainTimeout} and a grace of
     * a few seconds, however many queues run and even while claims hang on the database.
     */
    public synchronized ShutdownReport shutdown(Duration drainTimeout) {
        if (report != null) {
            return report;
        }
        OpenedBroker opened = lifecycle.close();
        report = opened == null ? ShutdownReport.NONE : opened.shutdown(drainTimeout);
        return report;
    }

    @Override
    public void close() {
        shutdown();
    }
}
