package dev.inbox.internal.broker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.internal.codec.JacksonCodec;
import dev.inbox.internal.codec.PayloadCodec;
import dev.inbox.ConnectionPooler;
import dev.inbox.Identifiers;
import dev.inbox.InboxException.Kind;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.RecurringJob;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.JobTracing;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.Threads;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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
 * A broker's configuration as it is written, before {@code connect()}: each setting checked as it
 * comes, with no I/O; {@link #seal} then hands out the immutable {@link BrokerConfig} and takes no
 * more. Every setting fails with {@code LIFECYCLE} once sealed and {@code CLOSED} once the broker
 * has shut down.
 */
public final class BrokerDraft {
    private final String url;
    private final Properties driverProperties;
    private final DataSource dataSource;
    private final Lifecycle lifecycle;
    /** The broker-wide options set on this broker; those not here take their declared default. */
    private final Map<SubscriptionOption<?>, Object> settings = new HashMap<>();
    /** How long a publish's insert waits for a lock by default: as long as the pool waits for a connection. */
    public static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(30);

    private int connectionLimit = 10;
    private Duration listenProbeInterval = Duration.ofSeconds(10);
    private Duration publishTimeout = DEFAULT_PUBLISH_TIMEOUT;
    private String pauseTable;
    private String scheduleTable;
    private String subscriberTable;
    private ConnectionPooler connectionPooler = ConnectionPooler.NONE;
    private final Map<String, RecurringJob<?>> recurring = new LinkedHashMap<>();
    private final List<Dialect> dialects = new ArrayList<>();
    private Clock clock = Clock.systemUTC();
    private ObjectMapper json;
    /** The application's own payload codec; null for Jackson through {@link #json}. */
    private PayloadCodec payloads;
    private Threads threads;
    private BrokerListener listener = new BrokerListener() {};
    private JobTracing tracing = JobTracing.NONE;
    private Executor handlerContext = Runnable::run;
    private DeliveryTransactions deliveryTransactions;
    private Consumer<String> wakeElsewhere = queue -> {};
    /** Read by publishers without the draft's lock, which a shutdown may hold for its drain. */
    private final Map<String, InboxSpec> routes = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, Subscription<?>> subscriptions = new LinkedHashMap<>();
    private boolean sealed;

    /**
     * @param url              the JDBC URL of a pool the broker builds; null for {@code dataSource}
     * @param driverProperties the driver's properties for {@code url}; null for {@code dataSource}
     */
    public BrokerDraft(String url, Properties driverProperties, DataSource dataSource, Lifecycle lifecycle,
            String pauseTable, String scheduleTable, String subscriberTable, ObjectMapper json, Threads threads) {
        this.url = url;
        this.driverProperties = driverProperties;
        this.dataSource = dataSource;
        this.lifecycle = lifecycle;
        this.pauseTable = pauseTable;
        this.scheduleTable = scheduleTable;
        this.subscriberTable = subscriberTable;
        this.json = json;
        this.threads = threads;
    }

    /** The driver properties that sign in as {@code user}, with {@code password} where not null. */
    public static Properties credentials(String user, String password) {
        Properties properties = new Properties();
        properties.setProperty("user", Objects.requireNonNull(user, "user"));
        if (password != null) {
            properties.setProperty("password", password);
        }
        return properties;
    }

    /**
     * Sets a broker-wide option for every subscription that sets none.
     *
     * @throws InboxException {@code DECLARATION} for an option that is not broker-wide or a value out of its range
     */
    public synchronized <V> void setting(SubscriptionOption<V> option, V value) {
        configuring("set " + option);
        if (!option.brokerWide()) {
            throw new InboxException(Kind.DECLARATION, "the option " + option + " is set per subscription, not on"
                    + " the broker: set it with Subscription.with(..)");
        }
        settings.put(option, option.check("broker " + option, value));
    }

    public synchronized void connectionLimit(int connections) {
        configuring("set connectionLimit");
        if (connections < 1 || connections > 1000) {
            throw new InboxException(Kind.DECLARATION, "connectionLimit must be between 1 and 1000, not " + connections);
        }
        connectionLimit = connections;
    }

    /** Whole seconds, rounded up: what a JDBC statement's query timeout takes. */
    public synchronized void publishTimeout(Duration timeout) {
        configuring("set publishTimeout");
        if (timeout == null || timeout.compareTo(Duration.ofSeconds(1)) < 0
                || timeout.compareTo(Duration.ofHours(1)) > 0) {
            throw new InboxException(Kind.DECLARATION, "publishTimeout must be between 1 s and 1 h, not " + timeout);
        }
        publishTimeout = BrokerOpener.wholeSeconds(timeout);
    }

    public synchronized void listenProbeInterval(Duration interval) {
        configuring("set listenProbeInterval");
        listenProbeInterval = SubscriptionOption.POLL_INTERVAL.check("listen probe interval", interval);
    }

    public synchronized void pauseTable(String table) {
        configuring("set the pause table");
        pauseTable = Identifiers.checkTable(Objects.requireNonNull(table, "table").trim());
    }

    public synchronized void subscriberTable(String table) {
        configuring("set the subscriber table");
        subscriberTable = Identifiers.checkTable(Objects.requireNonNull(table, "table").trim());
    }

    public synchronized void connectionPooler(ConnectionPooler pooler) {
        configuring("set the connection pooler");
        connectionPooler = Objects.requireNonNull(pooler, "pooler");
    }

    public synchronized void scheduleTable(String table) {
        configuring("set the schedule table");
        scheduleTable = Identifiers.checkTable(Objects.requireNonNull(table, "table").trim());
    }

    /** @throws InboxException {@code DECLARATION} for a name given twice */
    public synchronized void recurring(RecurringJob<?> job) {
        Objects.requireNonNull(job, "job");
        configuring("add recurring job " + job.name());
        if (recurring.putIfAbsent(job.name(), job) != null) {
            throw new InboxException(Kind.DECLARATION, "recurring job " + job.name() + " is declared twice on this"
                    + " broker: give each its own name");
        }
    }

    public synchronized void dialect(Dialect userDialect) {
        configuring("add a dialect");
        dialects.add(Objects.requireNonNull(userDialect, "dialect"));
    }

    public synchronized void wakeElsewhere(Consumer<String> wake) {
        configuring("set wakeElsewhere");
        wakeElsewhere = Objects.requireNonNull(wake, "wake");
    }

    public synchronized void clock(Clock value) {
        configuring("set the clock");
        clock = Objects.requireNonNull(value, "clock");
    }

    public synchronized void json(ObjectMapper mapper) {
        configuring("set the JSON mapper");
        json = Objects.requireNonNull(mapper, "mapper");
    }

    /** Payloads through {@code codec} rather than the JSON mapper, which keeps the headers. */
    public synchronized void payloads(PayloadCodec codec) {
        configuring("set the payload codec");
        payloads = Objects.requireNonNull(codec, "codec");
    }

    /** The codec of payloads: the application's, or Jackson through the JSON mapper. */
    public synchronized PayloadCodec payloads() {
        return payloads != null ? payloads : new JacksonCodec(json);
    }

    public synchronized void threads(Threads value) {
        configuring("set the threads");
        threads = Objects.requireNonNull(value, "threads");
    }

    public synchronized void handlerContext(Executor context) {
        configuring("set the handler context");
        handlerContext = Objects.requireNonNull(context, "context");
    }

    public synchronized void deliveryTransactions(DeliveryTransactions transactions) {
        configuring("set the delivery transactions");
        deliveryTransactions = Objects.requireNonNull(transactions, "transactions");
    }

    public synchronized void listener(BrokerListener value) {
        configuring("set the listener");
        listener = Objects.requireNonNull(value, "listener");
    }

    public synchronized void tracing(JobTracing value) {
        configuring("set the tracing");
        tracing = Objects.requireNonNull(value, "tracing");
    }

    /** @throws InboxException {@code DECLARATION} for a queue routed to another table already */
    public synchronized void route(String queue, InboxSpec spec) {
        configuring("route queue " + queue);
        Subscription.checkQueue(queue);
        InboxSpec known = routes.putIfAbsent(queue, Objects.requireNonNull(spec, "spec"));
        if (known != null && !known.equals(spec)) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + " is routed to table " + known.table()
                    + " already; a queue has one table description");
        }
    }

    /**
     * @throws InboxException {@code DECLARATION} for a declaration that cannot work, a second
     *                        subscription to one queue, or one to a table another subscription reads
     *                        with another payload type
     */
    public synchronized void subscribe(Subscription<?> subscription) {
        Objects.requireNonNull(subscription, "subscription");
        configuring("subscribe to queue " + subscription.queue());
        check(subscription);
        if (subscriptions.containsKey(subscription.queue())) {
            throw new InboxException(Kind.DECLARATION, "queue " + subscription.queue() + " has a subscription on"
                    + " this broker already: subscribe each queue once (raise its workers for more concurrency)");
        }
        for (Subscription<?> other : subscriptions.values()) {
            if (other.table().table().equalsIgnoreCase(subscription.table().table())
                    && !other.payloadType().equals(subscription.payloadType())) {
                // A row carries no queue: each subscription would claim the other's rows and fail to read them.
                throw new InboxException(Kind.DECLARATION, "queues " + other.queue() + " and " + subscription.queue()
                        + " both subscribe to table " + subscription.table().table() + ", with payloads of "
                        + other.payloadType().getTypeName() + " and " + subscription.payloadType().getTypeName()
                        + ", and each would take the other's rows: give each payload type a table of its own");
            }
        }
        route(subscription.queue(), subscription.table());
        subscriptions.put(subscription.queue(), subscription);
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
        Duration backoff = subscription.get(SubscriptionOption.RETRY_BACKOFF);
        Duration longest = subscription.get(SubscriptionOption.RETRY_BACKOFF_MAX);
        if (backoff.compareTo(longest) > 0) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + " waits " + backoff + " after a failed attempt"
                    + " (retry-backoff), longer than the longest wait it allows, " + longest + " (retry-backoff-max):"
                    + " lower retry-backoff or raise retry-backoff-max");
        }
        if (subscription.isBatch() && subscription.get(SubscriptionOption.TRANSACTIONAL)) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + " has a batch handler declared transactional:"
                    + " transactional mode serves single deliveries; remove transactional or take one payload per call");
        }
    }

    /** The table {@code queue} is routed or subscribed to; null where it is neither. */
    public InboxSpec route(String queue) {
        return routes.get(queue);
    }

    /** The JSON mapper of headers, and of payloads unless a codec is set. */
    public synchronized ObjectMapper json() {
        return json;
    }

    /** The threads the broker's parts run on. */
    public synchronized Threads threads() {
        return threads;
    }

    /**
     * The configuration written, to connect with: no setting is taken afterwards.
     *
     * @throws InboxException {@code LIFECYCLE} once sealed, {@code CLOSED} once shut down
     */
    public synchronized BrokerConfig seal() {
        configuring("connect again");
        sealed = true;
        return new BrokerConfig(url, driverProperties, dataSource, settings, connectionLimit, listenProbeInterval,
                publishTimeout, pauseTable, dialects, clock, json, payloads(), threads, listener, handlerContext,
                deliveryTransactions, wakeElsewhere, new LinkedHashMap<>(routes), List.copyOf(subscriptions.values()),
                scheduleTable, List.copyOf(recurring.values()), subscriberTable, connectionPooler, tracing);
    }

    /** Fails with {@code LIFECYCLE} (or {@code CLOSED}) once the broker has connected or shut down. */
    private void configuring(String what) {
        if (lifecycle.isClosed()) {
            throw new InboxException(Kind.CLOSED, "the broker has shut down, so it cannot " + what
                    + ": configure a new broker");
        }
        if (sealed) {
            throw new InboxException(Kind.LIFECYCLE, "the broker has connected, so it cannot " + what
                    + ": configure and subscribe before connect()");
        }
    }
}
