package dev.inbox.internal.broker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.ClaimForm;
import dev.inbox.InboxException.Kind;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.SqliteMode;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.FormPlan;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.form.advisory.AdvisoryForm;
import dev.inbox.internal.form.lease.LeaseForm;
import dev.inbox.internal.form.rowlock.RowLockForm;
import dev.inbox.internal.jdbc.Database;
import dev.inbox.internal.jdbc.JdbcDeliveryTransactions;
import dev.inbox.internal.jdbc.Redaction;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.internal.jdbc.WriteLockedDeliveryTransactions;
import dev.inbox.internal.runner.Deliverer;
import dev.inbox.internal.runner.EngineContext;
import dev.inbox.internal.runner.LastErrors;
import dev.inbox.internal.runner.RunnerSettings;
import dev.inbox.internal.runner.SettlementReports;
import dev.inbox.internal.runner.SubscriptionRunner;
import dev.inbox.internal.runner.Wakes;
import dev.inbox.internal.task.SteadyClock;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens a broker as the lifecycle orders it, starting nothing: reaches the database and resolves
 * its dialect; opens every queue's table; checks, builds and prepares every subscription; listens
 * for notifications last. Any failure releases what was taken (the listening connection, a pool
 * the broker built) before any row is claimed or any handler called.
 */
public final class BrokerOpener {
    private static final System.Logger LOG = System.getLogger(BrokerOpener.class.getName());

    private final BrokerConfig config;
    private final Database database;
    private final Dialect dialect;
    private final EngineContext engine;
    private final ConnectionBudget budget = new ConnectionBudget();
    private final PoolerRules pooler;
    /** Subscriptions that would listen, were the pooler to keep a LISTEN. */
    private final List<String> pollingForListen = new ArrayList<>();
    private final Map<String, PublishQueue> queues = new LinkedHashMap<>();
    private final Map<String, SubscriptionRunner> runners = new LinkedHashMap<>();
    private final Map<String, String> deadLetterTables = new LinkedHashMap<>();
    private final Map<String, Runnable> channels = new LinkedHashMap<>();
    /** What each subscribed table is declared as, for the subscriber table. */
    private final Map<String, SubscriberTable.Declared> declared = new LinkedHashMap<>();
    private SubscriberTable subscribers;
    private QueuePauses pauses;
    private RecurringJobs recurring;
    private boolean anyTransactional;

    private BrokerOpener(BrokerConfig config, Database database) {
        this.config = config;
        this.database = database;
        this.dialect = database.dialect();
        this.pooler = new PoolerRules(config.connectionPooler());
        DeliveryTransactions transactions = config.deliveryTransactions() != null ? config.deliveryTransactions()
                : new JdbcDeliveryTransactions(database, dialect);
        if (dialect.capabilities().writeLocksDatabase()) {
            transactions = new WriteLockedDeliveryTransactions(transactions, database);
        }
        // With a lease subscription, whose keepers read the database's clock to confirm a step, the
        // subscriptions' time holds a step of the host's clock the database does not confirm (SteadyClock).
        // Publishing, pauses and recurring jobs read the configured clock as it is.
        boolean leases = config.subscriptions().stream().anyMatch(s -> s.get(SubscriptionOption.ENABLED)
                && s.table().lease().isPresent());
        this.engine = new EngineContext(database, leases ? new SteadyClock(config.clock()) : config.clock(),
                config.listener(), config.handlerContext(), transactions, new Wakes(transactions, config.wakeElsewhere()),
                config.tracing());
    }

    /**
     * Opens everything {@code config} describes and starts nothing.
     *
     * @throws InboxException {@code URL}, {@code CONNECT}, {@code BACKEND}, or a startup error of a
     *                        subscription or of listening
     */
    public static OpenedBroker open(BrokerConfig config) {
        Database database = Database.connect(config.url(), config.driverProperties(), config.dataSource(),
                config.connectionLimit(), config.dialects());
        NotificationListener listener = null;
        BrokerOpener opener = null;
        try {
            opener = new BrokerOpener(config, database);
            opener.openQueues();
            listener = opener.listen();
            opener.budget.check(database.poolSize(), opener.anyTransactional);
            database.keepOpen(opener.budget.total());
            LOG.log(Level.INFO, "Inbox broker connected to {0} ({1}) and opened its queues", database.where(),
                    database.dialect().name());
            return new OpenedBroker(opener.engine, opener.queues, opener.runners, opener.deadLetterTables, listener,
                    opener.pauses, opener.recurring, opener.subscribers);
        } catch (RuntimeException e) {
            if (opener != null && opener.subscribers != null) {
                opener.subscribers.stop(System.nanoTime() + Duration.ofSeconds(5).toNanos());
            }
            if (listener != null) {
                try {
                    listener.stop(System.nanoTime());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            database.close();
            throw e;
        }
    }

    /** Opens the table of every queue, and builds and prepares every subscription, on one connection. */
    private void openQueues() {
        boolean brokerNotifies = config.setting(SubscriptionOption.LISTEN_NOTIFY);
        config.subscriptions().forEach(this::checkDeclaration);
        try (Connection connection = database.open()) {
            pooler.checkConnection(connection, dialect);
            pauses = new QueuePauses(database, connection, config.pauseTable(),
                    config.setting(SubscriptionOption.POLL_INTERVAL), config.clock());
            Map<String, OpenedTable> tables = new LinkedHashMap<>();
            for (Map.Entry<String, InboxSpec> route : config.routes().entrySet()) {
                tables.put(route.getKey(), OpenedTable.open(connection, dialect, route.getValue()));
            }
            for (Subscription<?> subscription : config.subscriptions()) {
                if (!subscription.get(SubscriptionOption.ENABLED)) {
                    LOG.log(Level.INFO, "queue {0}: subscription disabled by configuration", subscription.queue());
                    continue;
                }
                runners.put(subscription.queue(), subscribe(subscription, tables.get(subscription.queue()),
                        connection));
            }
            recurring = RecurringJobs.open(database, connection, config.scheduleTable(), config.recurring(),
                    tables.keySet(), config.clock(), config.setting(SubscriptionOption.POLL_INTERVAL));
            for (Map.Entry<String, OpenedTable> table : tables.entrySet()) {
                String queue = table.getKey();
                boolean notifies = dialect.capabilities().notifications() && (brokerNotifies
                        || channels.containsKey(dialect.listenChannel(table.getValue().spec().table())));
                InboxSpec spec = table.getValue().spec();
                queues.put(queue, new PublishQueue(queue, table.getValue(), database, config.clock(), engine.wakes(),
                        notifies, Payloads.limit(config.payloads(), table.getValue().payloadCapacity(),
                                spec.table() + "." + spec.payload().orElseThrow().name()), config.listener(),
                        (int) config.publishTimeout().toSeconds(), config.tracing()));
            }
            // Last: a broker refused for another reason leaves no declaration behind.
            subscribers = SubscriberTable.register(database, connection, config.subscriberTable(), config.clock(),
                    declared);
        } catch (SQLException e) {
            throw database.unreachable(e);
        }
    }

    /**
     * Refused before anything is opened: a table whose claim form the database does not serve, a
     * payload type Jackson cannot construct.
     */
    private void checkDeclaration(Subscription<?> subscription) {
        config.payloads().reader(subscription.payloadType(), subscription.queue());
        InboxSpec spec = subscription.table();
        if (!dialect.capabilities().forms().contains(spec.claimForm())) {
            throw new InboxException(Kind.DECLARATION, "queue " + subscription.queue() + ": table " + spec.table()
                    + " uses the " + spec.claimForm() + " form, which " + dialect.name() + " does not serve; it serves "
                    + dialect.capabilities().forms() + ": change the table's description");
        }
        pooler.checkSubscription(subscription);
    }

    /**
     * True when {@code sql}, a statement the form can do without, prepares on the database; else
     * says so and the form goes without it (a server that does not read a list of rows, say, or
     * a driver that does not send a chain of statements together).
     */
    private boolean preparesOrSays(Connection connection, String queue, Sql sql) {
        try {
            dialect.prepare(connection, sql.jdbc());
            return true;
        } catch (SQLException e) {
            LOG.log(Level.INFO, "queue {0}: the database does not take the {1} statement ({2}), so the engine does"
                    + " without it (a statement per row for a list, a round trip per statement for a chain)", queue,
                    sql.name(), Redaction.redact(e.getMessage()));
            return false;
        }
    }

    private <T> SubscriptionRunner subscribe(Subscription<T> subscription, OpenedTable table, Connection connection)
            throws SQLException {
        String queue = subscription.queue();
        InboxSpec spec = subscription.table();
        ClaimForm claimForm = spec.claimForm();
        dialect.checkServer(connection, spec, claimForm);
        checkServerTransactionMode(subscription);
        checkServerIsolation(subscription, connection);
        String deadLetter = subscription.find(SubscriptionOption.DEAD_LETTER)
                .map(dead -> table.deadLetterInsert(connection, dialect, dead, claimForm == ClaimForm.LEASE))
                .orElse(null);
        if (deadLetter != null && spec.id().isGenerated() && dialect.reusesIds(connection, table.shape())) {
            throw new InboxException(Kind.DECLARATION, "queue " + queue + ": table " + spec.table() + " gives a new"
                    + " row the id of the last row deleted (SQLite's INTEGER PRIMARY KEY without AUTOINCREMENT), so a"
                    + " row could reach dead-letter table " + subscription.get(SubscriptionOption.DEAD_LETTER)
                    + " with an id already there, and its move would fail every time: declare the id column INTEGER"
                    + " PRIMARY KEY AUTOINCREMENT (SQLite cannot alter it: create the new table, copy the rows into"
                    + " it, drop the old one)");
        }
        Duration lease = wholeSeconds(config.setting(subscription, SubscriptionOption.LEASE));
        RunnerSettings settings = new RunnerSettings(subscription.get(SubscriptionOption.WORKERS),
                subscription.get(SubscriptionOption.BATCH_SIZE),
                subscription.find(SubscriptionOption.PREFETCH).orElse(-1),
                config.setting(subscription, SubscriptionOption.POLL_INTERVAL), lease,
                subscription.find(SubscriptionOption.MAX_ATTEMPTS).orElse(0), deadLetter != null,
                subscription.get(SubscriptionOption.TRANSACTIONAL), subscription.get(SubscriptionOption.RETRY_BACKOFF),
                subscription.get(SubscriptionOption.RETRY_BACKOFF_MAX),
                subscription.find(SubscriptionOption.HANDLER_TIMEOUT).orElse(null));
        if (spec.lease().isEmpty() && spec.retryAfter().isEmpty() && !settings.retryBackoff().isZero()) {
            LOG.log(Level.WARNING, "queue {0}: table {1} has no retry_after column, so a row whose attempt failed is"
                    + " due again at once and the retry back-off cannot space its attempts; add a retry_after column"
                    + " (a nullable time, @RetryAfter) to the table and its description", queue, spec.table());
        }
        SettlementReports reports = new SettlementReports(queue, spec.table(), config.listener(),
                deadLetter == null ? null : subscription.get(SubscriptionOption.DEAD_LETTER));
        Set<InFlight> inWork = ConcurrentHashMap.newKeySet();
        TableShape shape = dialect.claimIndex(connection, spec, claimForm).map(table.shape()::withClaimIndex)
                .orElse(table.shape());
        FormContext context = new FormContext(queue, shape, dialect, database, engine.transactions(), reports,
                config.listener(), engine.clock(), config.json(), table.binaryPayload(), deadLetter,
                new FormContext.Workload(settings.workers(), settings.batchSize(), subscription.isBatch(),
                        settings.transactional()), inWork, sql -> preparesOrSays(connection, queue, sql));
        if (claimForm == ClaimForm.LEASE) {
            LeaseForm.checkClock(connection, context, lease);
        }
        FormPlan plan = switch (claimForm) {
            case LEASE -> LeaseForm.open(context, dialect.lease(shape), lease);
            case ROW_LOCK -> RowLockForm.open(context, dialect.rowLock(shape));
            case ADVISORY -> AdvisoryForm.open(context, dialect.advisory(shape), database.identity());
        };
        for (Sql sql : plan.statements()) {
            OpenedTable.prepare(connection, dialect, spec, sql);
        }
        Deliverer<T> deliverer = new Deliverer<>(engine, queue, spec, subscription.handler(),
                subscription.batchHandler(), config.payloads().reader(subscription.payloadType(), queue), settings,
                reports, LastErrors.of(table.lastErrorLength()));
        SubscriptionRunner runner = new SubscriptionRunner(queue, spec.table(), plan, deliverer, settings,
                subscription.isBatch(), engine.clock(), config.listener(), pauses::paused, inWork);
        engine.wakes().register(queue, runner::wake);
        if (deadLetter != null) {
            deadLetterTables.put(queue, subscription.get(SubscriptionOption.DEAD_LETTER));
        }
        if (config.setting(subscription, SubscriptionOption.LISTEN_NOTIFY)) {
            if (dialect.capabilities().notifications() && !pooler.listens()) {
                pollingForListen.add(queue);
            } else if (dialect.capabilities().notifications()) {
                channels.put(dialect.listenChannel(spec.table()), runner::wake);
            } else if (subscription.setting(SubscriptionOption.LISTEN_NOTIFY).isPresent()) {
                // Asked of this subscription, not inherited from the broker: refused rather than ignored.
                throw new InboxException(Kind.DECLARATION, "queue " + queue + " sets listen-notify, which needs"
                        + " PostgreSQL's LISTEN/NOTIFY, and " + dialect.name() + " has no notifications: remove it;"
                        + " the subscription wakes by its poll interval and the publishes of its process");
            } else {
                LOG.log(Level.WARNING, "queue {0}: listen-notify needs PostgreSQL, and {1} has no notifications; the"
                        + " subscription wakes by its poll interval and local publishes", queue, dialect.name());
            }
        }
        declared.put(spec.table(), new SubscriberTable.Declared(queue, claimForm + " form, payload "
                + subscription.payloadType().getTypeName()));
        anyTransactional |= settings.transactional();
        budget.add(queue, runner.connections(), plan.connections().heldWaiting());
        LOG.log(Level.INFO, "queue {0}: subscribed to table {1} ({2} form, {3} workers)", queue, spec.table(),
                claimForm, settings.workers());
        return runner;
    }

    /**
     * A server's data source begins a transaction as it is configured, and Inbox can only take
     * SQLite's write lock at its start (IMMEDIATE), so another mode declared for a transactional
     * subscription's table would not be what runs.
     */
    private void checkServerTransactionMode(Subscription<?> subscription) {
        InboxSpec spec = subscription.table();
        if (dialect.capabilities().writeLocksDatabase() && engine.transactions().boundToThread()
                && subscription.get(SubscriptionOption.TRANSACTIONAL)
                && (spec.mode() == SqliteMode.DEFERRED || spec.mode() == SqliteMode.EXCLUSIVE)) {
            throw new InboxException(Kind.DECLARATION, "queue " + subscription.queue() + ": table " + spec.table()
                    + " declares SQLite mode " + spec.mode() + ", but its transactional deliveries run in the"
                    + " server's JTA transactions, which Inbox can only make IMMEDIATE (the write lock taken before"
                    + " the handler runs): declare IMMEDIATE, or leave the mode unset");
        }
    }

    /**
     * A server's JTA transaction runs at its data source's isolation level, and the application's
     * own statements share it, so Inbox does not change it: a transactional subscription whose
     * table runs at another level is refused, naming the setting to change.
     */
    private void checkServerIsolation(Subscription<?> subscription, Connection connection) throws SQLException {
        InboxSpec spec = subscription.table();
        int wanted = dialect.deliveryIsolation(spec);
        if (wanted < 0 || !engine.transactions().boundToThread() || !subscription.get(SubscriptionOption.TRANSACTIONAL)) {
            return;
        }
        int given = connection.getTransactionIsolation();
        if (given != wanted) {
            String level = Database.isolationName(wanted);
            throw new InboxException(Kind.DECLARATION, "queue " + subscription.queue() + ": the transactional"
                    + " deliveries of table " + spec.table() + " run at " + level.substring("TRANSACTION_".length())
                    + ", but the server's data source gives its transactions " + Database.isolationName(given)
                    .substring("TRANSACTION_".length()) + ", and Inbox does not change the level of a JTA transaction"
                    + " the application's statements share: set the data source's isolation level (Open Liberty:"
                    + " isolationLevel=\"" + level + "\" on <dataSource>; WildFly: <transaction-isolation>" + level
                    + "</transaction-isolation>), or declare the table's isolation as the data source's");
        }
    }

    /** Listens on the channel of every subscription that listens: the last step, a failure a startup error. */
    private NotificationListener listen() {
        pooler.polling(pollingForListen);
        if (channels.isEmpty()) {
            return null;
        }
        NotificationListener listener = new NotificationListener(database, config.listenProbeInterval(), channels);
        listener.open();
        budget.addListener();
        return listener;
    }

    /** Whole seconds, at least one, rounded up. */
    public static Duration wholeSeconds(Duration d) {
        Duration whole = d.truncatedTo(ChronoUnit.SECONDS);
        return whole.equals(d) && !whole.isZero() ? whole : whole.plusSeconds(1);
    }
}
