package dev.inbox.engine;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.inbox.BrokerHealth;
import dev.inbox.Cancellation;
import dev.inbox.DeadLetter;
import dev.inbox.InboxException.Kind;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Publisher;
import dev.inbox.QueueStats;
import dev.inbox.RecurringJob;
import dev.inbox.ShutdownReport;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import dev.inbox.internal.broker.BrokerConfig;
import dev.inbox.internal.broker.BrokerOpener;
import dev.inbox.internal.broker.BrokerPublisher;
import dev.inbox.internal.broker.CronSchedule;
import dev.inbox.internal.broker.DeadLetterRows;
import dev.inbox.internal.broker.Lifecycle;
import dev.inbox.internal.broker.OpenedBroker;
import dev.inbox.internal.broker.Payloads;
import dev.inbox.internal.task.PlatformThreads;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.Threads;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
public final class InboxBroker implements AutoCloseable {
    /** How long {@link #shutdown()} lets deliveries in work settle. */
    public static final Duration DEFAULT_DRAIN = Duration.ofSeconds(30);
    /** The table of paused queues that {@link #pause} writes, unless {@link #pauseTable} names another. */
    public static final String DEFAULT_PAUSE_TABLE = "inbox_paused";
    /** The table of the recurring jobs' due times, unless {@link #scheduleTable} names another. */
    public static final String DEFAULT_SCHEDULE_TABLE = "inbox_schedule";

    private final String url;
    private final Properties driverProperties;
    private final DataSource applicationDataSource;

    /** The broker-wide options set on this broker; those not here take their declared default. */
    private final Map<SubscriptionOption<?>, Object> settings = new HashMap<>();
    private int connectionLimit = 10;
    private Duration listenProbeInterval = Duration.ofSeconds(10);
    private String pauseTable = DEFAULT_PAUSE_TABLE;
    private String scheduleTable = DEFAULT_SCHEDULE_TABLE;
    private final Map<String, RecurringJob<?>> recurring = new LinkedHashMap<>();
    /** Null: each subscription's own, five poll intervals and at least ten seconds. */
    private volatile Duration stuckAfter;
    private final List<Dialect> userDialects = new ArrayList<>();
    private Clock clock = Clock.systemUTC();
    private ObjectMapper json = defaultJson();
    private Threads threads = new PlatformThreads();
    private BrokerListener listener = new BrokerListener() {};
    private Executor handlerContext = Runnable::run;
    private DeliveryTransactions deliveryTransactions;
    private Consumer<String> wakeElsewhere = queue -> {};
    /** Read by publisher() without the broker's lock, which shutdown may hold for its drain. */
    private final Map<String, InboxSpec> routes = java.util.Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, Subscription<?>> subscriptions = new LinkedHashMap<>();

    private final Map<PublisherKey, Publisher<?>> publishers = new java.util.concurrent.ConcurrentHashMap<>();
    private final Lifecycle lifecycle = new Lifecycle();
    private boolean connecting;
    private ShutdownReport report;

    private InboxBroker(String url, Properties driverProperties, DataSource applicationDataSource) {
        this.url = url;
        this.driverProperties = driverProperties;
        this.applicationDataSource = applicationDataSource;
    }

    /** A broker that builds a pool of its own for {@code url}; user and password may be in the URL. */
    public static InboxBroker fromUrl(String url) {
        return new InboxBroker(Objects.requireNonNull(url, "url"), new Properties(), null);
    }

    /** A broker that builds a pool of its own for {@code url}, signing in as {@code user}. */
    public static InboxBroker fromUrl(String url, String user, String password) {
        Properties properties = new Properties();
        properties.setProperty("user", Objects.requireNonNull(user, "user"));
        if (password != null) {
            properties.setProperty("password", password);
        }
        return new InboxBroker(Objects.requireNonNull(url, "url"), properties, null);
    }

    /** A broker on the application's pool, which it uses and never closes. */
    public static InboxBroker fromDataSource(DataSource dataSource) {
        return new InboxBroker(null, null, Objects.requireNonNull(dataSource, "dataSource"));
    }

    /** The default JSON mapper: Jackson with java.time support and no default typing. */
    public static ObjectMapper defaultJson() {
        return JsonMapper.builder()
                .addModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .build();
    }

    // ---- configuration: no I/O ----

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
    public synchronized <V> InboxBroker setting(SubscriptionOption<V> option, V value) {
        configuring("set " + option);
        if (!option.brokerWide()) {
            throw new InboxException(Kind.DECLARATION, "the option " + option + " is set per subscription, not on"
                    + " the broker: set it with Subscription.with(..)");
        }
        settings.put(option, option.check("broker " + option, value));
        return this;
    }

    /** The size of the pool a broker built from a URL keeps. */
    public synchronized InboxBroker connectionLimit(int connections) {
        configuring("set connectionLimit");
        if (connections < 1 || connections > 1000) {
            throw new InboxException(Kind.DECLARATION, "connectionLimit must be between 1 and 1000, not " + connections);
        }
        connectionLimit = connections;
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

    /** How often the LISTEN connection checks it still hears notifications (default 10 s). */
    public synchronized InboxBroker listenProbeInterval(Duration interval) {
        configuring("set listenProbeInterval");
        listenProbeInterval = SubscriptionOption.POLL_INTERVAL.check("listen probe interval", interval);
        return this;
    }

    /**
     * The table of paused queues ({@code queue VARCHAR(200) PRIMARY KEY, paused_at} a time), shared
     * by every server on the database; default {@value #DEFAULT_PAUSE_TABLE}. Where it does not exist
     * when the broker connects, nothing is paused and {@link #pause} fails naming it.
     */
    public synchronized InboxBroker pauseTable(String table) {
        configuring("set the pause table");
        pauseTable = dev.inbox.Identifiers.checkTable(Objects.requireNonNull(table, "table").trim());
        return this;
    }

    /**
     * The table of the recurring jobs' next due times ({@code name VARCHAR(200) PRIMARY KEY,
     * cron VARCHAR(200), next_due} a time), shared by every server on the database; default
     * {@value #DEFAULT_SCHEDULE_TABLE}. Needed where the broker has recurring jobs.
     */
    public synchronized InboxBroker scheduleTable(String table) {
        configuring("set the schedule table");
        scheduleTable = dev.inbox.Identifiers.checkTable(Objects.requireNonNull(table, "table").trim());
        return this;
    }

    /**
     * Publishes {@code job} into its queue at each occurrence of its cron expression, once per
     * occurrence across every server that declares it on the same database (see {@link RecurringJob}).
     * Its queue must be routed or subscribed on this broker.
     *
     * @throws InboxException {@code DECLARATION} for a name given twice
     */
    public synchronized InboxBroker recurring(RecurringJob<?> job) {
        Objects.requireNonNull(job, "job");
        configuring("add recurring job " + job.name());
        if (recurring.putIfAbsent(job.name(), job) != null) {
            throw new InboxException(Kind.DECLARATION, "recurring job " + job.name() + " is declared twice on this"
                    + " broker: give each its own name");
        }
        return this;
    }

    /** A dialect for a database the built-ins do not serve; tried before them. */
    public synchronized InboxBroker dialect(Dialect userDialect) {
        configuring("add a dialect");
        userDialects.add(Objects.requireNonNull(userDialect, "dialect"));
        return this;
    }

    /**
     * Told the queue of rows this broker's publishers made visible (committed) where no
     * subscription of this broker takes the queue, so that the process can wake the broker that
     * does: the resource adapter wakes a message-driven bean's subscription this way. Runs on the
     * publishing thread; keep it quick.
     */
    public synchronized InboxBroker wakeElsewhere(Consumer<String> wake) {
        configuring("set wakeElsewhere");
        wakeElsewhere = Objects.requireNonNull(wake, "wake");
        return this;
    }

    /** The clock that judges due rows and leases (the host's UTC clock by default). */
    public synchronized InboxBroker clock(Clock value) {
        configuring("set the clock");
        clock = Objects.requireNonNull(value, "clock");
        return this;
    }

    /** The Jackson mapper for payloads and headers. Never enable default typing on it. */
    public synchronized InboxBroker json(ObjectMapper mapper) {
        configuring("set the JSON mapper");
        json = Objects.requireNonNull(mapper, "mapper");
        return this;
    }

    /** Runs claim loops, keepers and workers; the resource adapter passes its WorkManager here. */
    public synchronized InboxBroker threads(Threads value) {
        configuring("set the threads");
        threads = Objects.requireNonNull(value, "threads");
        return this;
    }

    /**
     * Runs every delivery (decoding, handler, settlement) inside the application's context; in a
     * server, {@code ContextService.currentContextExecutor()} captured on an application thread.
     */
    public synchronized InboxBroker handlerContext(Executor context) {
        configuring("set the handler context");
        handlerContext = Objects.requireNonNull(context, "context");
        return this;
    }

    /**
     * How transactional deliveries open their transaction, and how a publisher learns that the
     * transaction it joined committed: JDBC on the broker's pool by default, JTA in a server.
     */
    public synchronized InboxBroker deliveryTransactions(DeliveryTransactions transactions) {
        configuring("set the delivery transactions");
        deliveryTransactions = Objects.requireNonNull(transactions, "transactions");
        return this;
    }

    public synchronized InboxBroker listener(BrokerListener value) {
        configuring("set the listener");
        listener = Objects.requireNonNull(value, "listener");
        return this;
    }

    /** Binds {@code queue} to the table {@code spec} describes, for publishers of a queue with no subscription here. */
    public synchronized InboxBroker route(String queue, InboxSpec spec) {
        configuring("route queue " + queue);
        Subscription.checkQueue(queue);
        InboxSpec known = routes.putIfAbsent(queue, Objects.requireNonNull(spec, "spec"));
        if (known != null && !known.equals(spec)) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + " is routed to table " + known.table()
                    + " already; a queue has one table description");
        }
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
    public synchronized InboxBroker subscribe(Subscription<?> subscription) {
        Objects.requireNonNull(subscription, "subscription");
        configuring("subscribe to queue " + subscription.queue());
        check(subscription);
        if (subscriptions.containsKey(subscription.queue())) {
            throw new InboxException(Kind.DECLARATION, "queue " + subscription.queue() + " has a subscription on"
                    + " this broker already: subscribe each queue once (raise its workers for more concurrency)");
        }
        route(subscription.queue(), subscription.table());
        subscriptions.put(subscription.queue(), subscription);
        return this;
    }

    /** The checks of a subscription's declaration that need no database. */
    private static void check(Subscription<?> subscription) {
        String queue = subscription.queue();
        subscription.table().claimForm();
        boolean cap = subscription.find(SubscriptionOption.MAX_ATTEMPTS).isPresent();
        boolean deadLetter = subscription.find(SubscriptionOption.DEAD_LETTER).isPresent();
        if (cap != deadLetter) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + " sets " + (cap ? "maxAttempts" : "deadLetter")
                    + " without " + (cap ? "deadLetter" : "maxAttempts") + ": set both or neither");
        }
        if (cap && subscription.table().attempt().isEmpty()) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + " caps its attempts, but table "
                    + subscription.table().table() + " has no attempt column: add one (@Attempt) or remove maxAttempts");
        }
        if (subscription.isBatch() && subscription.get(SubscriptionOption.TRANSACTIONAL)) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + " has a batch handler declared transactional:"
                    + " transactional mode serves single deliveries; remove transactional or take one payload per call");
        }
    }

    /** Fails with {@code LIFECYCLE} (or {@code CLOSED}) once the broker has connected or shut down. */
    private void configuring(String what) {
        if (lifecycle.isClosed()) {
            throw new InboxException(Kind.CLOSED, "the broker has shut down, so it cannot " + what
                    + ": configure a new broker");
        }
        if (connecting) {
            throw new InboxException(Kind.LIFECYCLE, "the broker has connected, so it cannot " + what
                    + ": configure and subscribe before connect()");
        }
    }

    // ---- connect ----

    /**
     * Reaches the database, resolves its dialect, opens every queue and subscription and listens
     * where they listen; once all of that succeeded, starts the subscriptions. A failure leaves
     * nothing claimed and no handler called, and closes a pool the broker built.
     *
     * @throws InboxException {@code URL}, {@code CONNECT}, {@code BACKEND}, any startup error of a
     *                        subscription, or {@code LIFECYCLE} when called twice
     */
    public synchronized InboxBroker connect() {
        configuring("connect again");
        connecting = true;
        OpenedBroker opened;
        try {
            opened = BrokerOpener.open(new BrokerConfig(url, driverProperties, applicationDataSource, settings,
                    connectionLimit, listenProbeInterval, pauseTable, userDialects, clock, json, threads, listener,
                    handlerContext, deliveryTransactions, wakeElsewhere, new LinkedHashMap<>(routes),
                    List.copyOf(subscriptions.values()), scheduleTable, List.copyOf(recurring.values())));
        } catch (RuntimeException e) {
            lifecycle.close();
            report = new ShutdownReport(0, 0, 0, 0);
            throw e;
        }
        lifecycle.opened(opened);
        opened.start(threads, this::publisher);
        return this;
    }

    // ---- while it runs ----

    /**
     * A publisher for {@code queue}, which must be routed or subscribed on this broker. It may be
     * taken before {@code connect()} and publishes once the broker has connected.
     *
     * @throws InboxException {@code DECLARATION} for a queue the broker does not know, or a payload
     *                        type Jackson cannot construct (it could be published, but never handled)
     */
    @SuppressWarnings("unchecked")
    public <T> Publisher<T> publisher(String queue, Class<T> payloadType) {
        return (Publisher<T>) publishers.computeIfAbsent(new PublisherKey(queue, payloadType), key -> {
            InboxSpec spec = routes.get(queue);
            if (spec == null) {
                throw OpenedBroker.unknown(queue);
            }
            Payloads.requireDecodable(json, payloadType, queue);
            return new BrokerPublisher<>(lifecycle, queue, spec, json, payloadType);
        });
    }

    /** Publishers made, one per queue and payload type: each is checked once. */
    private record PublisherKey(String queue, Class<?> payloadType) {}

    /**
     * The dead letters of {@code queue}, newest first, at most {@code limit}.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue this broker does not subscribe to with a
     *                        dead-letter table
     */
    public List<DeadLetter> deadLetters(String queue, int limit) {
        return deadLetterRows(queue, "list dead letters").list(limit);
    }

    /**
     * Moves dead letter {@code id} of {@code queue} back into the queue: its payload and headers
     * become a new job on its first attempt (with the same id where the table does not generate
     * ids), in the transaction that deletes the dead row.
     *
     * @throws InboxException {@code NOT_FOUND} for an unknown queue, or an id its dead-letter table
     *                        does not hold (never there, or retried or deleted already)
     */
    public void retryDeadLetter(String queue, Object id) {
        deadLetterRows(queue, "retry a dead letter").retry(id);
    }

    /**
     * Deletes dead letter {@code id} of {@code queue}.
     *
     * @throws InboxException {@code NOT_FOUND} as {@link #retryDeadLetter} does
     */
    public void deleteDeadLetter(String queue, Object id) {
        deadLetterRows(queue, "delete a dead letter").delete(id);
    }

    /**
     * Pauses {@code queue}: its claims stop on every server sharing the database within one poll
     * interval; deliveries in work finish. Pausing a paused queue changes nothing.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue this broker does not know; {@code SCHEMA}
     *                        where the pause table was missing when the broker connected
     */
    public void pause(String queue) {
        running("pause a queue").pause(queue);
    }

    /** Resumes {@code queue} on every server within one poll interval (here at once); as {@link #pause} fails. */
    public void resume(String queue) {
        running("resume a queue").resume(queue);
    }

    /** The queues paused now, read from the pause table (empty without the table). */
    public java.util.Set<String> paused() {
        return running("list paused queues").paused();
    }

    private DeadLetterRows deadLetterRows(String queue, String what) {
        OpenedBroker opened = running(what);
        Objects.requireNonNull(queue, "queue");
        BrokerPublisher<?> publisher = routes.containsKey(queue) ? (BrokerPublisher<?>) publisher(queue, Object.class)
                : null;
        return opened.deadLetters(queue, publisher, json);
    }

    /** What each queue this broker routes holds now, by queue name. */
    public Map<String, QueueStats> stats() {
        return running("read the queues' stats").stats();
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
    public Cancellation cancel(String queue, Object id) {
        return running("cancel a job").cancel(queue, Objects.requireNonNull(id, "id"));
    }

    private OpenedBroker running(String what) {
        if (lifecycle.isClosed()) {
            throw new InboxException(Kind.CLOSED, "the broker has shut down, so it cannot " + what);
        }
        OpenedBroker opened = lifecycle.opened();
        if (opened == null) {
            throw new InboxException(Kind.LIFECYCLE, "the broker has not connected, so it cannot " + what
                    + ": call connect() first");
        }
        return opened;
    }

    /** The dialect resolved at connect, for logs and tests. */
    public String dialectName() {
        return running("name its dialect").dialectName();
    }

    /** For tests: the LISTEN connection stops hearing, as behind a pooler that dropped its LISTEN. */
    void silenceListener() {
        running("silence its listener").silenceListener();
    }

    /** For tests: how many times the LISTEN connection connected. */
    int listenerConnects() {
        return running("count its listener's connects").listenerConnects();
    }

    // ---- shutdown ----

    /** {@link #shutdown(Duration)} with a 30 second drain. */
    public ShutdownReport shutdown() {
        return shutdown(DEFAULT_DRAIN);
    }

    /**
     * Sets the closed flag (every publisher now fails with {@code CLOSED}), stops the claim loops,
     * keepers and listener, lets deliveries in work settle until {@code drainTimeout}, gives back
     * the rows of handlers still running then, and closes a pool the broker built.
     */
    public synchronized ShutdownReport shutdown(Duration drainTimeout) {
        if (report != null) {
            return report;
        }
        OpenedBroker opened = lifecycle.close();
        report = opened == null ? new ShutdownReport(0, 0, 0, 0) : opened.shutdown(drainTimeout);
        return report;
    }

    @Override
    public void close() {
        shutdown();
    }
}
