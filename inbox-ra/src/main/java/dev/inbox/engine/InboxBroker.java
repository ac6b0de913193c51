package dev.inbox.engine;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.zaxxer.hikari.HikariConfig;
import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.InboxException.Kind;
import dev.inbox.InboxSpec;
import dev.inbox.Publisher;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import dev.inbox.dialect.MySqlDialect;
import dev.inbox.dialect.PostgresDialect;
import dev.inbox.dialect.SqliteDialect;
import dev.inbox.engine.form.AdvisoryForm;
import dev.inbox.engine.form.Form;
import dev.inbox.engine.form.LeaseForm;
import dev.inbox.engine.form.RowLockForm;
import dev.inbox.spi.Dialect;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * The engine's entry point: configured with no I/O, then {@link #connect()}ed, which resolves the
 * dialect of the database reached and opens every subscription; {@link #shutdown()} stops it.
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
    private static final System.Logger LOG = System.getLogger(InboxBroker.class.getName());
    /** How long {@link #shutdown()} lets deliveries in work settle. */
    public static final Duration DEFAULT_DRAIN = Duration.ofSeconds(30);

    private enum State { CONFIGURED, CONNECTED, CLOSED }

    private final String url;
    private final Properties driverProperties;
    private final DataSource applicationDataSource;

    /** The broker-wide options set on this broker; those not here take their declared default. */
    private final Map<SubscriptionOption<?>, Object> settings = new java.util.HashMap<>();
    private int connectionLimit = 10;
    private Duration listenProbeInterval = Duration.ofSeconds(10);
    private final List<Dialect> userDialects = new ArrayList<>();
    private Clock clock = Clock.systemUTC();
    private ObjectMapper json = defaultJson();
    private Threads threads = Threads.platform();
    private BrokerListener listener = new BrokerListener() {};
    private java.util.concurrent.Executor handlerContext = Runnable::run;
    private DeliveryTransactions deliveryTransactions;
    private final Map<String, InboxSpec> routes = new ConcurrentHashMap<>();
    private final List<Subscription<?>> pending = new ArrayList<>();

    private volatile State state = State.CONFIGURED;
    private Connections connections;
    private Dialect dialect;
    private String databaseUrl;
    private PostgresListener notifications;
    private final ConnectionBudget budget = new ConnectionBudget();
    private boolean anyTransactional;
    private final Map<String, OpenedTable> tables = new ConcurrentHashMap<>();
    private final Map<String, SubscriptionRunner> runners = new ConcurrentHashMap<>();
    private final Map<String, String> deadLetterTables = new ConcurrentHashMap<>();
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

    /** The lease of lease tables whose subscription sets none: whole seconds, at least one, rounded up. */
    public InboxBroker lease(Duration value) {
        return setting(SubscriptionOption.LEASE, value);
    }

    /** How often an idle subscription claims when nothing wakes it. */
    public InboxBroker pollInterval(Duration value) {
        return setting(SubscriptionOption.POLL_INTERVAL, value);
    }

    /**
     * Sets a {@linkplain SubscriptionOption#brokerWide() broker-wide} option for every subscription
     * that sets none.
     *
     * @throws InboxException {@code DECLARATION} for an option that is not broker-wide or a value out of its range
     */
    public <V> InboxBroker setting(SubscriptionOption<V> option, V value) {
        configuring();
        if (!option.brokerWide()) {
            throw new InboxException(Kind.DECLARATION, "the option " + option + " is set per subscription, not on"
                    + " the broker: set it with Subscription.with(..)");
        }
        settings.put(option, option.check("broker " + option, value));
        return this;
    }

    /** The broker's value of a broker-wide option. */
    private <V> V setting(SubscriptionOption<V> option) {
        Object value = settings.get(option);
        return value != null ? option.type().cast(value) : option.defaultValue();
    }

    /** The size of the pool a broker built from a URL keeps. */
    public InboxBroker connectionLimit(int connections) {
        configuring();
        if (connections < 1 || connections > 1000) {
            throw new InboxException(Kind.DECLARATION, "connectionLimit must be between 1 and 1000, not " + connections);
        }
        connectionLimit = connections;
        return this;
    }

    /**
     * On PostgreSQL, wakes subscriptions at once on rows any process inserts: the broker listens
     * on one connection, and its publishers notify the table's channel. Subscriptions may turn it
     * off or on for themselves.
     */
    public InboxBroker listenNotify(boolean on) {
        return setting(SubscriptionOption.LISTEN_NOTIFY, on);
    }

    /** How often the LISTEN connection checks it still hears notifications (default 10 s). */
    public InboxBroker listenProbeInterval(Duration interval) {
        configuring();
        listenProbeInterval = SubscriptionOption.POLL_INTERVAL.check("listen probe interval", interval);
        return this;
    }

    /** A dialect for a database the built-ins do not serve; tried before them. */
    public InboxBroker dialect(Dialect userDialect) {
        configuring();
        userDialects.add(Objects.requireNonNull(userDialect, "dialect"));
        return this;
    }

    /** The clock that judges due rows and leases (the host's UTC clock by default). */
    public InboxBroker clock(Clock value) {
        configuring();
        clock = Objects.requireNonNull(value, "clock");
        return this;
    }

    /** The Jackson mapper for payloads and headers. Never enable default typing on it. */
    public InboxBroker json(ObjectMapper mapper) {
        configuring();
        json = Objects.requireNonNull(mapper, "mapper");
        return this;
    }

    /** Runs claim loops, keepers and workers; the resource adapter passes its WorkManager here. */
    public InboxBroker threads(Threads value) {
        configuring();
        threads = Objects.requireNonNull(value, "threads");
        return this;
    }

    /**
     * Runs every delivery (decoding, handler, settlement) inside the application's context; in a
     * server, {@code ContextService.currentContextExecutor()} captured on an application thread.
     */
    public InboxBroker handlerContext(java.util.concurrent.Executor context) {
        configuring();
        handlerContext = Objects.requireNonNull(context, "context");
        return this;
    }

    /** How transactional deliveries open their transaction: JDBC on the broker's pool by default, JTA in a server. */
    public InboxBroker deliveryTransactions(DeliveryTransactions transactions) {
        configuring();
        deliveryTransactions = Objects.requireNonNull(transactions, "transactions");
        return this;
    }

    public InboxBroker listener(BrokerListener value) {
        configuring();
        listener = Objects.requireNonNull(value, "listener");
        return this;
    }

    /** Binds {@code queue} to the table {@code spec} describes, for publishers of a queue with no subscription here. */
    public InboxBroker route(String queue, InboxSpec spec) {
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

    /** Adds a subscription: opened by {@link #connect()}, or at once on a connected broker. */
    public synchronized InboxBroker subscribe(Subscription<?> subscription) {
        Objects.requireNonNull(subscription, "subscription");
        if (state == State.CLOSED) {
            throw closed(subscription.queue());
        }
        if (state == State.CONNECTED) {
            open(subscription);
        } else {
            pending.add(subscription);
        }
        return this;
    }

    private void configuring() {
        if (state != State.CONFIGURED) {
            throw new IllegalStateException("the broker is " + state.name().toLowerCase()
                    + ": set its configuration before connect()");
        }
    }

    // ---- connect ----

    /**
     * Reaches the database, resolves its dialect and opens every subscription added so far.
     *
     * @throws InboxException {@code URL}, {@code CONNECT}, {@code BACKEND}, or any startup error of a subscription
     */
    public synchronized InboxBroker connect() {
        configuring();
        try {
            connections = applicationDataSource != null ? Connections.of(applicationDataSource) : buildPool();
            try (Connection connection = connections.open()) {
                if (dialect == null) {
                    dialect = resolve(connection.getMetaData());
                }
                databaseUrl = connection.getMetaData().getURL();
            } catch (SQLException e) {
                throw unreachable(e);
            }
            if (deliveryTransactions == null) {
                deliveryTransactions = new JdbcDeliveryTransactions(connections, dialect);
            }
            state = State.CONNECTED;
            LOG.log(Level.INFO, "Inbox broker connected to {0} ({1})", where(), dialect.name());
            for (Subscription<?> subscription : pending) {
                open(subscription);
            }
            pending.clear();
            return this;
        } catch (RuntimeException e) {
            abandon();
            throw e;
        }
    }

    private Connections buildPool() {
        Driver driver;
        try {
            driver = DriverManager.getDriver(url);
        } catch (SQLException e) {
            throw new InboxException(Kind.URL, "no JDBC driver on the class path reads the URL " + where()
                    + ": check its scheme (jdbc:postgresql://, jdbc:mariadb://, jdbc:mysql://, jdbc:sqlite:) and that"
                    + " the driver's jar is deployed");
        }
        // One connection straight from the driver: a database out of reach fails now, with its reason.
        try (Connection probe = driver.connect(url, driverProperties)) {
            if (probe == null) {
                throw new InboxException(Kind.URL, "the JDBC driver does not accept the URL " + where());
            }
            dialect = resolve(probe.getMetaData());
        } catch (SQLException e) {
            throw unreachable(e);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setDataSourceProperties(driverProperties);
        config.setMaximumPoolSize(connectionLimit);
        config.setMinimumIdle(Math.min(2, connectionLimit));
        config.setPoolName("inbox");
        if (dialect.poolIsolation() >= 0) {
            config.setTransactionIsolation(isolationName(dialect.poolIsolation()));
        }
        if (!dialect.connectionInitSql().isEmpty()) {
            config.setConnectionInitSql(String.join("; ", dialect.connectionInitSql()));
        }
        return Connections.pool(config);
    }

    /** The name HikariCP takes for a {@link Connection} isolation constant. */
    private static String isolationName(int level) {
        return switch (level) {
            case Connection.TRANSACTION_READ_UNCOMMITTED -> "TRANSACTION_READ_UNCOMMITTED";
            case Connection.TRANSACTION_READ_COMMITTED -> "TRANSACTION_READ_COMMITTED";
            case Connection.TRANSACTION_REPEATABLE_READ -> "TRANSACTION_REPEATABLE_READ";
            case Connection.TRANSACTION_SERIALIZABLE -> "TRANSACTION_SERIALIZABLE";
            default -> throw new IllegalArgumentException("no isolation level " + level);
        };
    }

    private InboxException unreachable(SQLException e) {
        return new InboxException(Kind.CONNECT, "the database at " + where() + " is out of reach ("
                + redact(e.getMessage()) + "): check the host, port, database name and credentials, and that the"
                + " server runs");
    }

    private Dialect resolve(DatabaseMetaData metaData) throws SQLException {
        List<Dialect> candidates = new ArrayList<>(userDialects);
        ServiceLoader.load(Dialect.class).forEach(candidates::add);
        candidates.add(new PostgresDialect());
        candidates.add(new MySqlDialect());
        candidates.add(new SqliteDialect());
        for (Dialect candidate : candidates) {
            if (candidate.serves(metaData)) {
                return candidate;
            }
        }
        throw new InboxException(Kind.BACKEND, "no dialect serves " + metaData.getDatabaseProductName() + " "
                + metaData.getDatabaseProductVersion() + ": Inbox serves PostgreSQL, MySQL 8.0.1+, MariaDB 10.6+ and"
                + " SQLite; for another database give the broker a dialect of your own (InboxBroker.dialect(..))");
    }

    private String where() {
        return url != null ? redact(url) : "the application's DataSource";
    }

    private String redact(String text) {
        return Redaction.redact(text, driverProperties == null ? null : driverProperties.getProperty("password"));
    }

    // ---- subscriptions ----

    private <T> void open(Subscription<T> subscription) {
        String queue = subscription.queue();
        InboxSpec spec = subscription.table();
        ClaimForm form = spec.claimForm();
        if (!dialect.forms().contains(form)) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + ": table " + spec.table() + " uses the "
                    + form + " form, which " + dialect.name() + " does not serve; it serves " + dialect.forms()
                    + ": change the table's description");
        }
        checkAttempts(subscription);
        if (subscription.isBatch() && subscription.get(SubscriptionOption.TRANSACTIONAL)) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + " has a batch handler declared transactional:"
                    + " transactional mode serves single deliveries; remove transactional or take one payload per call");
        }
        if (runners.containsKey(queue)) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + " has a subscription on this broker"
                    + " already: subscribe each queue once (raise its workers for more concurrency)");
        }
        route(queue, spec);
        if (!subscription.get(SubscriptionOption.ENABLED)) {
            LOG.log(Level.INFO, "queue {0}: subscription disabled by configuration", queue);
            return;
        }
        Duration leaseOfQueue = wholeSeconds(subscription.setting(SubscriptionOption.LEASE).orElse(setting(SubscriptionOption.LEASE)));
        Form claimForm;
        try (Connection connection = connections.open()) {
            OpenedTable table = table(queue, connection);
            dialect.checkServer(connection, spec, form);
            boolean transactional = subscription.get(SubscriptionOption.TRANSACTIONAL);
            String deadLetter = subscription.find(SubscriptionOption.DEAD_LETTER)
                    .map(dead -> deadLetterInsert(connection, table, dead, form)).orElse(null);
            claimForm = switch (form) {
                case LEASE -> new LeaseForm(queue, spec.table(), dialect, dialect.lease(table.shape()), deadLetter,
                        leaseOfQueue, table.binaryPayload(), json);
                case ROW_LOCK -> new RowLockForm(queue, spec, dialect, dialect.rowLock(table.shape()), deadLetter,
                        table.binaryPayload(), json, transactional);
                case ADVISORY -> new AdvisoryForm(queue, spec, dialect, dialect.advisory(table.shape()), deadLetter,
                        table.binaryPayload(), json, databaseUrl);
            };
            for (Sql sql : claimForm.statements()) {
                OpenedTable.prepare(connection, dialect, spec, sql);
            }
        } catch (SQLException e) {
            throw unreachable(e);
        }
        RunnerSettings settings = new RunnerSettings(subscription.get(SubscriptionOption.WORKERS),
                subscription.get(SubscriptionOption.BATCH_SIZE), subscription.find(SubscriptionOption.PREFETCH).orElse(-1),
                subscription.setting(SubscriptionOption.POLL_INTERVAL).orElse(setting(SubscriptionOption.POLL_INTERVAL)), leaseOfQueue,
                subscription.find(SubscriptionOption.MAX_ATTEMPTS).orElse(0),
                subscription.find(SubscriptionOption.DEAD_LETTER).isPresent(),
                subscription.get(SubscriptionOption.TRANSACTIONAL));
        Deliverer<T> deliverer = new Deliverer<>(this, queue, spec, claimForm, subscription.handler(),
                subscription.batchHandler(), json.readerFor(json.constructType(subscription.payloadType())), settings);
        SubscriptionRunner runner = new SubscriptionRunner(this, queue, spec.table(), claimForm, deliverer, settings,
                subscription.isBatch());
        runners.put(queue, runner);
        runner.start(threads);
        if (subscription.setting(SubscriptionOption.LISTEN_NOTIFY).orElse(setting(SubscriptionOption.LISTEN_NOTIFY))) {
            listenFor(queue, spec, runner);
        }
        subscription.find(SubscriptionOption.DEAD_LETTER).ifPresent(dead -> deadLetterTables.put(queue, dead));
        anyTransactional |= settings.transactional();
        budget.add(queue, ConnectionBudget.need(form, settings.workers(), runner.claimLoops(), settings.transactional()));
        budget.check(connections.poolSize(), anyTransactional);
        LOG.log(Level.INFO, "queue {0}: subscribed to table {1} ({2} form, {3} workers)", queue, spec.table(), form,
                subscription.get(SubscriptionOption.WORKERS));
    }

    /** The dead-letter insert, after checking the dead-letter table has the columns it needs. */
    private String deadLetterInsert(Connection connection, OpenedTable table, String deadTable, ClaimForm form) {
        InboxSpec spec = table.spec();
        List<String> columns = new ArrayList<>(List.of("id", "payload", "attempt", "error", "failed_at"));
        spec.headers().ifPresent(h -> columns.add("headers"));
        String probe = "SELECT " + columns.stream().map(dialect::quote).collect(java.util.stream.Collectors.joining(", "))
                + " FROM " + dialect.quote(deadTable) + " WHERE 1 = 0";
        try (java.sql.Statement s = connection.createStatement()) {
            s.executeQuery(probe).close();
        } catch (SQLException e) {
            throw new InboxException(Kind.SCHEMA, "dead-letter table " + deadTable + " of table " + spec.table()
                    + " does not have the columns " + columns + " (" + e.getMessage().trim() + "): create it as"
                    + " README shows. Statement: " + probe, e);
        }
        return dialect.deadLetter(table.shape(), deadTable, form == ClaimForm.LEASE);
    }

    private void listenFor(String queue, InboxSpec spec, SubscriptionRunner runner) {
        if (!dialect.listensForNotifications()) {
            LOG.log(Level.WARNING, "queue {0}: listen-notify needs PostgreSQL, and {1} has no notifications; the"
                    + " subscription wakes by its poll interval and local publishes", queue, dialect.name());
            return;
        }
        if (notifications == null) {
            notifications = new PostgresListener(connections, listenProbeInterval);
            notifications.start(threads);
            budget.addListener();
        }
        notifications.listen(dialect.listenChannel(spec.table()), runner::wake);
    }

    /** True when publishers notify the table's channel after their insert. */
    boolean notifiesOnPublish() {
        return setting(SubscriptionOption.LISTEN_NOTIFY) && dialect.listensForNotifications();
    }

    /** For tests: the LISTEN connection stops hearing, as behind a pooler that dropped its LISTEN. */
    void silenceListener() {
        notifications.silence();
    }

    /** For tests: how many times the LISTEN connection connected. */
    int listenerConnects() {
        return notifications == null ? 0 : notifications.connects();
    }

    private static void checkAttempts(Subscription<?> subscription) {
        boolean cap = subscription.find(SubscriptionOption.MAX_ATTEMPTS).isPresent();
        boolean deadLetter = subscription.find(SubscriptionOption.DEAD_LETTER).isPresent();
        String queue = subscription.queue();
        if (cap != deadLetter) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + " sets " + (cap ? "maxAttempts" : "deadLetter")
                    + " without " + (cap ? "deadLetter" : "maxAttempts") + ": set both or neither");
        }
        if (cap && subscription.table().attempt().isEmpty()) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + " caps its attempts, but table "
                    + subscription.table().table() + " has no attempt column: add one (@Attempt) or remove maxAttempts");
        }
    }

    /** Whole seconds, at least one, rounded up. */
    static Duration wholeSeconds(Duration d) {
        Duration whole = d.truncatedTo(ChronoUnit.SECONDS);
        return whole.equals(d) && !whole.isZero() ? whole : whole.plusSeconds(1);
    }

    // ---- publishing ----

    /**
     * A publisher for {@code queue}, which must be routed or subscribed on this broker.
     *
     * @throws InboxException {@code DECLARATION} for a queue the broker does not know
     */
    public <T> Publisher<T> publisher(String queue, Class<T> payloadType) {
        InboxSpec spec = routes.get(queue);
        if (spec == null) {
            for (Subscription<?> s : pending) {
                if (s.queue().equals(queue)) {
                    spec = s.table();
                }
            }
        }
        if (spec == null) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + " is unknown to this broker: route it"
                    + " (broker.route(\"" + queue + "\", Table.class)) or subscribe to it");
        }
        return new BrokerPublisher<>(this, queue, spec, json, payloadType);
    }

    /** What each queue this broker routes holds now, by queue name. */
    public Map<String, QueueStats> stats() {
        checkOpen("(stats)");
        Map<String, QueueStats> stats = new java.util.TreeMap<>();
        try (Connection connection = connections.open()) {
            for (String queue : routes.keySet()) {
                InboxSpec spec = routes.get(queue);
                long unfinished = count(connection, spec.table(), spec.processedAt()
                        .map(p -> dialect.quote(p.name()) + " IS NULL").orElse(null));
                SubscriptionRunner runner = runners.get(queue);
                long inWork = runner == null ? 0 : runner.inWork();
                String dead = deadLetterTables.get(queue);
                stats.put(queue, new QueueStats(Math.max(0, unfinished - inWork), inWork,
                        dead == null ? 0 : count(connection, dead, null)));
            }
        } catch (SQLException e) {
            throw new InboxException(Kind.DATABASE, "counting the queues' rows failed: " + redact(e.getMessage()), e);
        }
        return stats;
    }

    private long count(Connection connection, String table, String condition) throws SQLException {
        String sql = "SELECT COUNT(*) FROM " + dialect.quote(table) + (condition == null ? "" : " WHERE " + condition);
        try (java.sql.Statement s = connection.createStatement(); java.sql.ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Wakes the local subscription of {@code queue}, if any: something was published to it. */
    public void wake(String queue) {
        SubscriptionRunner runner = runners.get(queue);
        if (runner != null) {
            runner.wake();
        }
    }

    void checkOpen(String queue) {
        State now = state;
        if (now == State.CLOSED) {
            throw closed(queue);
        }
        if (now == State.CONFIGURED) {
            throw new IllegalStateException("connect the broker before publishing to queue " + queue);
        }
    }

    private static InboxException closed(String queue) {
        return new InboxException(Kind.CLOSED, "the broker has shut down: queue " + queue + " takes no more work;"
                + " publish through a running broker");
    }

    OpenedTable table(String queue) {
        OpenedTable table = tables.get(queue);
        if (table != null) {
            return table;
        }
        try (Connection connection = connections.open()) {
            return table(queue, connection);
        } catch (SQLException e) {
            throw unreachable(e);
        }
    }

    private OpenedTable table(String queue, Connection connection) throws SQLException {
        OpenedTable table = tables.get(queue);
        if (table == null) {
            table = OpenedTable.open(connection, dialect, routes.get(queue));
            tables.putIfAbsent(queue, table);
        }
        return table;
    }

    Connections connections() {
        return connections;
    }

    Dialect dialect() {
        return dialect;
    }

    Clock clock() {
        return clock;
    }

    BrokerListener listener() {
        return listener;
    }

    java.util.concurrent.Executor handlerContext() {
        return handlerContext;
    }

    DeliveryTransactions deliveryTransactions() {
        return deliveryTransactions;
    }

    /** True when both brokers reach the same database (for SQLite, the same file). */
    boolean sameDatabase(InboxBroker other) {
        return databaseUrl != null && databaseUrl.equals(other.databaseUrl);
    }

    /** The dialect resolved at connect, for logs and tests. */
    public String dialectName() {
        if (dialect == null) {
            throw new IllegalStateException("the broker has not connected yet");
        }
        return dialect.name();
    }

    /** Stops extending the leases of {@code queue}'s deliveries, as a database out of the keeper's reach would. */
    void pauseKeeper(String queue, boolean paused) {
        runners.get(queue).pauseKeeper(paused);
    }

    // ---- shutdown ----

    /** {@link #shutdown(Duration)} with a 30 second drain. */
    public ShutdownReport shutdown() {
        return shutdown(DEFAULT_DRAIN);
    }

    /**
     * Sets the closed flag (every publisher now fails with {@code CLOSED}), stops the claim loops and
     * keepers, lets deliveries in work settle until {@code drainTimeout}, gives back the rows of
     * handlers still running then, and closes a pool the broker built.
     */
    public synchronized ShutdownReport shutdown(Duration drainTimeout) {
        if (state == State.CLOSED) {
            return report;
        }
        state = State.CLOSED;
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        int cutOff = 0;
        int released = 0;
        int locks = 0;
        try {
            for (SubscriptionRunner runner : runners.values()) {
                runner.stopClaiming(Duration.ofSeconds(30));
            }
            for (SubscriptionRunner runner : runners.values()) {
                locks += runner.releaseLocks();
            }
            for (SubscriptionRunner runner : runners.values()) {
                cutOff += runner.drain(deadline);
                released += runner.rowsReleased();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (notifications != null) {
            try {
                notifications.stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        int closed = connections == null ? 0 : connections.close();
        report = new ShutdownReport(released, locks, cutOff, closed);
        LOG.log(Level.INFO, "Inbox broker shut down: {0}", report);
        return report;
    }

    private void abandon() {
        state = State.CLOSED;
        for (SubscriptionRunner runner : runners.values()) {
            try {
                runner.stopClaiming(Duration.ofSeconds(5));
                runner.closeAcks(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (connections != null) {
            connections.close();
        }
        report = new ShutdownReport(0, 0, 0, 0);
    }

    @Override
    public void close() {
        shutdown();
    }
}
