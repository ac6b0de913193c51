package dev.inbox.jca;

import dev.inbox.ConnectionPooler;
import dev.inbox.InboxException;
import dev.inbox.QueueHealth;
import dev.inbox.ShutdownReport;
import dev.inbox.SubscriptionOption;
import dev.inbox.engine.InboxBroker;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ActivationSpec;
import jakarta.resource.spi.BootstrapContext;
import jakarta.resource.spi.ResourceAdapter;
import jakarta.resource.spi.ResourceAdapterInternalException;
import jakarta.resource.spi.UnavailableException;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.io.Serializable;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import javax.sql.DataSource;
import javax.transaction.xa.XAResource;

/**
 * The Inbox resource adapter: runs the engine's tasks (claims, deliveries, lease extensions) as
 * short Work under the server's WorkManager, with one engine broker per application that
 * registers its handlers and one per message-driven bean it activates
 * ({@link dev.inbox.InboxListener}). Applications reach it through its administered object
 * ({@link InboxAdapterObject}), which the server binds in JNDI.
 * Its properties (ra.xml, or the server's {@code <resourceAdapter>} properties) set the defaults
 * the applications' MicroProfile Config may override.
 */
public class InboxResourceAdapter implements ResourceAdapter, InboxAdapter, Serializable {
    private static final long serialVersionUID = 1L;
    private static final System.Logger LOG = System.getLogger(InboxResourceAdapter.class.getName());

    /** The data source's JNDI name where the application's configuration names none. */
    static final String DEFAULT_DATA_SOURCE = "jdbc/inbox";

    private String dataSource = DEFAULT_DATA_SOURCE;
    /** The {@code PauseTable} property; null for the engine's default. */
    private String pauseTable;
    /** The {@code ConnectionPooler} property; null for none. */
    private ConnectionPooler connectionPooler;
    private String drainTimeout;
    private Duration drain;
    /** The broker-wide options set as properties, by property name; an option not here takes its default. */
    private final Map<String, String> brokerProperties = new ConcurrentHashMap<>();

    private transient WorkManagerThreads threads;
    private transient TransactionSynchronizationRegistry transactionRegistry;
    private final transient Map<String, Registered> brokers = new ConcurrentHashMap<>();
    /** The subscriptions of the message-driven beans activated, by their endpoint factory. */
    private final transient Map<MessageEndpointFactory, EndpointActivation> endpoints = new ConcurrentHashMap<>();
    /** Finds a data source by JNDI name; tests give their own. */
    private transient Function<String, DataSource> dataSources = InboxResourceAdapter::lookup;

    @Override
    public void start(BootstrapContext context) throws ResourceAdapterInternalException {
        threads = new WorkManagerThreads(context.getWorkManager(), createTimer(context));
        transactionRegistry = context.getTransactionSynchronizationRegistry();
        LOG.log(Level.INFO, "Inbox resource adapter started (data source {0}, properties {1})", dataSource,
                brokerProperties);
    }

    private static Timer createTimer(BootstrapContext context) throws ResourceAdapterInternalException {
        try {
            return context.createTimer();
        } catch (UnavailableException e) {
            throw new ResourceAdapterInternalException("the server gave the Inbox adapter no timer: " + e.getMessage(), e);
        }
    }

    @Override
    public InboxBroker register(Registration registration) {
        Objects.requireNonNull(registration, "registration");
        if (threads == null) {
            throw new InboxException(InboxException.Kind.CLOSED, "the Inbox resource adapter has stopped");
        }
        InboxBroker broker = InboxBroker.fromDataSource(AutoCommitOnBorrow.of(registration.dataSource(),
                transactionRegistry))
                .threads(threads)
                .handlerContext(registration.context())
                .wakeElsewhere(this::wake);
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            if (option.brokerWide()) {
                applySetting(broker, option, registration.settings().get(option));
            }
        }
        if (registration.transactions() != null) {
            broker.deliveryTransactions(registration.transactions());
        }
        if (registration.listener() != null) {
            broker.listener(registration.listener());
        }
        if (registration.tracing() != null) {
            broker.tracing(registration.tracing());
        }
        registration.routes().forEach(broker::route);
        registration.subscriptions().forEach(broker::subscribe);
        registration.recurring().forEach(broker::recurring);
        String pauses = registration.pauseTable() != null ? registration.pauseTable() : pauseTable;
        if (pauses != null) {
            broker.pauseTable(pauses);
        }
        if (registration.scheduleTable() != null) {
            broker.scheduleTable(registration.scheduleTable());
        }
        ConnectionPooler pooler = registration.connectionPooler() != null ? registration.connectionPooler()
                : connectionPooler;
        if (pooler != null) {
            broker.connectionPooler(pooler);
        }
        if (registration.subscriberTable() != null) {
            broker.subscriberTable(registration.subscriberTable());
        }
        if (registration.payloadCodec() != null) {
            registration.payloadCodec().accept(broker);
        }
        // Called on the application's thread as it starts: its class loader tells its beans from others'.
        Registered registered = new Registered(broker, registration.drainTimeout() != null
                ? registration.drainTimeout() : drainTimeout(), Thread.currentThread().getContextClassLoader());
        Registered previous = brokers.put(registration.application(), registered);
        if (previous != null) {
            previous.shutdown();
        }
        try {
            return broker.connect();
        } catch (RuntimeException e) {
            brokers.remove(registration.application(), registered);
            throw e;
        }
    }

    /**
     * An application's broker, how long its deliveries in work may settle when it stops, and the
     * application's class loader (null where the server set none).
     */
    private record Registered(InboxBroker broker, Duration drainTimeout, ClassLoader classes) {
        /** Drains the broker; a second call waits for the first and returns its report. */
        ShutdownReport shutdown() {
            return shutdownCountingFrom(System.nanoTime());
        }

        /** Drains the broker within the drain timeout counted from {@code since} ({@link System#nanoTime()}). */
        ShutdownReport shutdownCountingFrom(long since) {
            Duration left = drainTimeout.minusNanos(System.nanoTime() - since);
            return broker.shutdown(left.isNegative() ? Duration.ZERO : left);
        }

        boolean owns(Class<?> bean) {
            return classes != null && loads(classes, bean);
        }
    }

    /** The application's value of a broker-wide option, else the adapter's property, else the option's default. */
    private <V> void applySetting(InboxBroker broker, SubscriptionOption<V> option, Object applications) {
        String property = brokerProperties.get(option.adapterProperty());
        V value = applications != null ? option.type().cast(applications)
                : property != null ? option.parse("resource adapter property " + option.adapterProperty(), property)
                : null;
        if (value != null) {
            broker.setting(option, value);
        }
    }

    private Duration drainTimeout() {
        return drain == null ? InboxBroker.DEFAULT_DRAIN : drain;
    }

    @Override
    public ShutdownReport unregister(String application) {
        Registered registered = brokers.remove(application);
        return registered == null ? null : registered.shutdown();
    }

    @Override
    public void stop() {
        endpoints.keySet().forEach(factory -> endpointDeactivation(factory, null));
        brokers.keySet().forEach(this::unregister);
        if (threads != null) {
            threads.stop();
        }
        threads = null;
        LOG.log(Level.INFO, "Inbox resource adapter stopped");
    }

    /**
     * Subscribes a message-driven bean implementing {@link dev.inbox.InboxListener} to its queue:
     * its activation spec checked, its table and data source opened, and its subscription started,
     * or nothing at all.
     */
    @Override
    public void endpointActivation(MessageEndpointFactory factory, ActivationSpec spec) throws ResourceException {
        if (!(spec instanceof InboxActivationSpec inbox)) {
            throw new jakarta.resource.NotSupportedException("Inbox activates beans with an InboxActivationSpec,"
                    + " not " + (spec == null ? "none" : spec.getClass().getName()));
        }
        if (threads == null) {
            throw new ResourceAdapterInternalException("the Inbox resource adapter has stopped");
        }
        inbox.validate();
        String name = inbox.getDataSource() != null ? inbox.getDataSource() : dataSource;
        try {
            EndpointActivation activation = EndpointActivation.open(factory, inbox,
                    () -> AutoCommitOnBorrow.of(dataSources.apply(name), transactionRegistry),
                    threads, transactionRegistry, broker -> {
                        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
                            if (option.brokerWide()) {
                                applySetting(broker, option, null);
                            }
                        }
                        if (pauseTable != null) {
                            broker.pauseTable(pauseTable);
                        }
                        if (connectionPooler != null) {
                            broker.connectionPooler(connectionPooler);
                        }
                        broker.wakeElsewhere(this::wake);
                    });
            EndpointActivation previous = endpoints.put(factory, activation);
            if (previous != null) {
                previous.close(drainTimeout());
            }
            if (activation.subscribed()) {
                LOG.log(Level.INFO, "Inbox: bean {0} subscribed to queue {1} on data source {2}",
                        EndpointActivation.beanName(factory), inbox.getQueue(), name);
            }
        } catch (InboxException e) {
            throw new ResourceException(e.getMessage(), e);
        }
    }

    /**
     * Rows of {@code queue} were published, by an application or a bean, through a broker with no
     * subscription to it: wakes the brokers of this adapter that have one, so a bean's queue fed by
     * an application's publisher (or the other way round) is claimed at once, not at its next poll.
     */
    private void wake(String queue) {
        brokers.values().forEach(registered -> registered.broker().wake(queue));
        endpoints.values().forEach(activation -> activation.wake(queue));
    }

    @Override
    public List<QueueHealth> beans(ClassLoader application) {
        List<QueueHealth> health = new ArrayList<>();
        for (EndpointActivation activation : endpoints.values()) {
            if (loads(application, activation.beanClass())) {
                health.add(activation.health());
            }
        }
        health.sort(java.util.Comparator.comparing(QueueHealth::queue));
        return health;
    }

    /** Whether {@code application}'s class loader gives the bean's own class: the bean is the application's. */
    private static boolean loads(ClassLoader application, Class<?> bean) {
        if (bean == null) {
            return false;
        }
        try {
            return Class.forName(bean.getName(), false, application) == bean;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Stops a bean's subscription: its deliveries in work settle until the drain timeout, the rest go back. */
    @Override
    public void endpointDeactivation(MessageEndpointFactory factory, ActivationSpec spec) {
        EndpointActivation activation = endpoints.remove(factory);
        if (activation != null) {
            drainApplicationOf(activation.beanClass(), factory);
            String bean = EndpointActivation.beanName(factory);
            activation.close(drainTimeout()).ifPresentOrElse(
                    report -> LOG.log(Level.INFO, "Inbox: bean {0} unsubscribed: {1}", bean, report),
                    () -> LOG.log(Level.INFO, "Inbox: bean {0} stopped before its subscription opened", bean));
        }
    }

    /**
     * Begins, in the background, the drain of the brokers of the application whose bean is
     * deactivated. Open Liberty deactivates every message-driven bean as it begins to quiesce, and
     * stops the applications only once its quiesce has waited (up to 30 s) for the deliveries in
     * work; drained from the deactivation on, the deliveries end by the drain timeout and the whole
     * stop with them. The application's own stop ({@link #unregister}) then waits for this drain.
     */
    private void drainApplicationOf(Class<?> bean, MessageEndpointFactory factory) {
        WorkManagerThreads running = threads;
        // Counted from now: a Work may wait for a thread while the server's are busy.
        long deactivated = System.nanoTime();
        brokers.forEach((application, registered) -> {
            if (running == null || !registered.owns(bean)) {
                return;
            }
            LOG.log(Level.INFO, "Inbox: bean {0} deactivated: application {1} stops its handlers too, draining"
                    + " them for up to {2} s", EndpointActivation.beanName(factory), application,
                    registered.drainTimeout().toSeconds());
            try {
                running.run("inbox-drain " + application, () -> registered.shutdownCountingFrom(deactivated));
            } catch (RuntimeException e) {
                registered.shutdownCountingFrom(deactivated); // no thread to spare: drained here
            }
        });
    }

    /** A data source by its JNDI name. */
    private static DataSource lookup(String name) {
        return JndiDataSources.lookup(name, "declare it in the server's configuration, or name yours with the"
                + " activation config property dataSource");
    }

    /** For tests: how data sources are found instead of JNDI. */
    void dataSources(Function<String, DataSource> lookup) {
        dataSources = lookup;
    }

    @Override
    public XAResource[] getXAResources(ActivationSpec[] specs) {
        return null;
    }

    @Override
    public String getDataSource() {
        return dataSource;
    }

    public void setDataSource(String value) {
        dataSource = value;
    }

    /** The table of paused queues of every broker of this adapter whose application names none. */
    public String getPauseTable() {
        return pauseTable;
    }

    public void setPauseTable(String value) {
        pauseTable = value == null || value.isBlank() ? null : dev.inbox.Identifiers.checkTable(value.trim());
    }

    /** What stands between every broker of this adapter and the database, where its application names none. */
    public String getConnectionPooler() {
        return connectionPooler == null ? null : connectionPooler.name().toLowerCase(java.util.Locale.ROOT);
    }

    public void setConnectionPooler(String value) {
        connectionPooler = value == null || value.isBlank() ? null
                : ConnectionPooler.parse("resource adapter property ConnectionPooler", value);
    }

    // The properties of the broker-wide subscription options (SubscriptionOption.brokerWide()).

    public String getLease() {
        return brokerProperties.get(SubscriptionOption.LEASE.adapterProperty());
    }

    public void setLease(String value) {
        brokerProperty(SubscriptionOption.LEASE, value);
    }

    public String getPollInterval() {
        return brokerProperties.get(SubscriptionOption.POLL_INTERVAL.adapterProperty());
    }

    public void setPollInterval(String value) {
        brokerProperty(SubscriptionOption.POLL_INTERVAL, value);
    }

    public Boolean getListenNotify() {
        String value = brokerProperties.get(SubscriptionOption.LISTEN_NOTIFY.adapterProperty());
        return value == null ? null : Boolean.valueOf(value);
    }

    public void setListenNotify(Boolean value) {
        brokerProperty(SubscriptionOption.LISTEN_NOTIFY, value == null ? null : value.toString());
    }

    /** Keeps a broker-wide option's property after checking it, so a bad value fails the adapter's start. */
    private void brokerProperty(SubscriptionOption<?> option, String value) {
        if (value == null || value.isBlank()) {
            brokerProperties.remove(option.adapterProperty());
            return;
        }
        option.parse("resource adapter property " + option.adapterProperty(), value);
        brokerProperties.put(option.adapterProperty(), value.trim());
    }

    public String getDrainTimeout() {
        return drainTimeout;
    }

    /** Checked here, so a bad value fails the adapter's start naming the property. */
    public void setDrainTimeout(String value) {
        boolean unset = value == null || value.isBlank();
        drain = unset ? null : Registration.drainTimeout("resource adapter property DrainTimeout", value);
        drainTimeout = unset ? null : value.trim();
    }

    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
