package dev.inbox.jca;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inbox.Delivery;
import dev.inbox.InboxException;
import dev.inbox.InboxListener;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.QueueHealth;
import dev.inbox.ShutdownReport;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import dev.inbox.engine.InboxBroker;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Threads;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.UnavailableException;
import jakarta.resource.spi.endpoint.MessageEndpoint;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * One message-driven bean's subscription: a broker on the bean's data source with one subscription
 * to its queue, whose handler hands each job to an endpoint the server creates. Every delivery runs
 * {@code beforeDelivery}, the listener, and {@code afterDelivery}, always paired. In a transacted
 * bean (container-managed {@code REQUIRED}) {@code beforeDelivery} begins the container's
 * transaction: the settlement runs on the data source inside it and commits with the bean's writes
 * at {@code afterDelivery}; any other outcome marks it for rollback first, and the row then settles
 * apart as for any transactional delivery.
 */
final class EndpointActivation {
    static final Method ON_JOB;

    static {
        try {
            ON_JOB = InboxListener.class.getMethod("onJob", String.class, Delivery.class);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** How long a subscription that could not open (its table missing, its database out of reach) waits to try again. */
    static final Duration RETRY_INTERVAL = Duration.ofSeconds(2);
    /** Attempts (a minute's worth) after which a subscription still waiting is a warning. */
    private static final int ATTEMPTS_BEFORE_WARNING = 30;
    private static final System.Logger LOG = System.getLogger(EndpointActivation.class.getName());

    private final MessageEndpointFactory factory;
    private final boolean transacted;
    /** The endpoint whose delivery runs on this thread, between its beforeDelivery and afterDelivery. */
    private final ThreadLocal<MessageEndpoint> current = new ThreadLocal<>();
    private final String queue;
    private Supplier<InboxBroker> brokers;
    private Threads threads;
    /** The subscription's broker once it opened; null while it waits for its table or database. */
    private volatile InboxBroker broker;
    private boolean closed;
    private int attempts;
    private volatile String lastFailure;
    /** Why the bean gave up subscribing; null while it subscribes or tries to. */
    private volatile String gaveUp;

    private EndpointActivation(MessageEndpointFactory factory, boolean transacted, String queue) {
        this.factory = factory;
        this.transacted = transacted;
        this.queue = queue;
    }

    /**
     * Checks the bean's declaration and opens its subscription. A declaration that cannot work
     * fails here and nothing runs. A subscription whose table is missing or whose database is out
     * of reach (an application that creates its tables when it starts, after the server activated
     * its beans; a database still starting; a data source the server binds after it activates the
     * beans) is opened again every {@link #RETRY_INTERVAL} in the
     * background until it opens or the bean is deactivated, as JMS adapters retry their setup.
     *
     * @param settings applies the adapter's broker-wide properties and hooks
     * @throws InboxException {@code DECLARATION} for a table class the bean's application lacks or
     *                        a transactional option the bean contradicts, or any startup error of
     *                        the engine but a missing table and an unreachable database
     */
    static EndpointActivation open(MessageEndpointFactory factory, InboxActivationSpec spec,
            Supplier<DataSource> dataSources, Threads threads, TransactionSynchronizationRegistry registry,
            Consumer<InboxBroker> settings)
            throws UnavailableException {
        boolean transacted;
        try {
            transacted = factory.isDeliveryTransacted(ON_JOB);
        } catch (NoSuchMethodException e) {
            throw new InboxException(InboxException.Kind.DECLARATION, "the bean " + beanName(factory)
                    + " does not implement " + InboxListener.class.getName() + ".onJob", e);
        }
        EndpointActivation activation = new EndpointActivation(factory, transacted, spec.getQueue());
        InboxSpec table = table(factory, spec);
        Subscription<JsonNode> subscription = spec.apply(Subscription.of(spec.getQueue(), table, JsonNode.class,
                activation::deliver));
        boolean declared = subscription.get(SubscriptionOption.TRANSACTIONAL);
        if (subscription.setting(SubscriptionOption.TRANSACTIONAL).isPresent() && declared != transacted) {
            throw new InboxException(InboxException.Kind.DECLARATION, "queue " + spec.getQueue() + ": the activation"
                    + " config property transactional is " + declared + ", but the bean " + beanName(factory)
                    + (transacted ? " runs onJob in the container's transaction" : " runs onJob without a transaction")
                    + ": remove the property; the bean's transaction attribute (REQUIRED or NOT_SUPPORTED) decides");
        }
        Subscription<JsonNode> declaredSubscription = subscription.transactional(transacted);
        activation.threads = threads;
        activation.brokers = () -> {
            // Looked up with each attempt: Payara and GlassFish activate the beans of an application
            // deployed before the server's start before they bind its data sources.
            DataSource dataSource = dataSources.get();
            InboxBroker broker = InboxBroker.fromDataSource(dataSource).threads(threads).subscribe(declaredSubscription);
            if (transacted) {
                broker.deliveryTransactions(activation.new ContainerTransactions(dataSource, registry));
            }
            settings.accept(broker);
            return broker;
        };
        if (!activation.connect()) {
            activation.retryLater();
        }
        return activation;
    }

    /**
     * The bean as logs name it: its class, and the server's activation name where it says more
     * (Open Liberty: {@code app#module#Bean}).
     */
    static String beanName(MessageEndpointFactory factory) {
        Class<?> bean = factory.getEndpointClass();
        String activation = factory.getActivationName();
        if (bean == null) {
            return activation;
        }
        return activation == null || !activation.contains(bean.getSimpleName()) ? bean.getName()
                : bean.getName() + " (" + activation + ")";
    }

    /** Opens the subscription; false when its table or database is not there yet (logged). */
    private synchronized boolean connect() {
        if (closed || broker != null) {
            return true;
        }
        attempts++;
        try {
            broker = brokers.get().connect();
            if (attempts > 1) {
                LOG.log(Level.INFO, "Inbox: bean {0} subscribed to queue {1} after {2} attempts",
                        beanName(factory), queue, attempts);
            }
            return true;
        } catch (InboxException e) {
            if (e.kind() != InboxException.Kind.SCHEMA && e.kind() != InboxException.Kind.CONNECT) {
                throw e;
            }
            // An application creating its tables as it starts is the usual cause: said quietly at
            // first, as a warning once it lasts.
            boolean lasts = attempts >= ATTEMPTS_BEFORE_WARNING;
            if (!e.getMessage().equals(lastFailure) || attempts == ATTEMPTS_BEFORE_WARNING) {
                lastFailure = e.getMessage();
                LOG.log(lasts ? Level.WARNING : Level.INFO, "Inbox: bean {0} cannot subscribe to queue {1}"
                        + (lasts ? " after {4} attempts" : " yet") + ": {2}; trying again every {3} s until it can or"
                        + " the bean stops", beanName(factory), queue, e.getMessage(),
                        RETRY_INTERVAL.toSeconds(), attempts);
            }
            return false;
        }
    }

    private void retryLater() {
        threads.schedule(RETRY_INTERVAL, () -> threads.run("inbox-activation " + queue, this::retry));
    }

    private void retry() {
        boolean open;
        try {
            open = connect();
        } catch (RuntimeException e) {
            gaveUp = e.getMessage();
            LOG.log(Level.ERROR, "Inbox: bean " + beanName(factory) + " gives up subscribing to queue "
                    + queue + ": " + e.getMessage() + "; mend it and restart the application", e);
            return;
        }
        if (!open) {
            try {
                retryLater();
            } catch (RuntimeException e) {
                if (!closed()) { // else the adapter stopped its timer with the bean
                    LOG.log(Level.ERROR, "Inbox: bean " + beanName(factory) + " cannot try again to"
                            + " subscribe to queue " + queue + ": " + e.getMessage(), e);
                }
            }
        }
    }

    private synchronized boolean closed() {
        return closed;
    }

    /**
     * The bean's subscription's health: its broker's once open; not ready while it waits for its
     * table or database, or after it gave up, naming the bean and why.
     */
    QueueHealth health() {
        InboxBroker open = broker;
        String bean = "message-driven bean " + beanName(factory) + ": ";
        if (open != null) {
            return open.health().queues().stream().findFirst()
                    .map(q -> new QueueHealth(queue, q.ready(), q.live(), q.paused(),
                            q.problem().isEmpty() ? "" : bean + q.problem()))
                    .orElseGet(() -> new QueueHealth(queue, false, true, false, bean + "its broker has stopped"));
        }
        String failure = gaveUp;
        return new QueueHealth(queue, false, true, false, bean + (failure != null
                ? "gave up subscribing to queue " + queue + ": " + failure
                : "cannot subscribe to queue " + queue + " yet: " + lastFailure));
    }

    /** The bean's class, as its application loads it; null where the server did not say. */
    Class<?> beanClass() {
        return factory.getEndpointClass();
    }

    /** Whether the subscription is open (false while it waits for its table or database). */
    boolean subscribed() {
        return broker != null;
    }

    /** Wakes the subscription if it takes {@code queue}: rows of it were published elsewhere in the process. */
    void wake(String published) {
        InboxBroker open = broker;
        if (open != null && published.equals(queue)) {
            open.wake(published);
        }
    }

    private static InboxSpec table(MessageEndpointFactory factory, InboxActivationSpec spec) {
        Class<?> bean = factory.getEndpointClass();
        ClassLoader loader = bean != null ? bean.getClassLoader() : Thread.currentThread().getContextClassLoader();
        try {
            return InboxSpec.of(Class.forName(spec.getTable(), true, loader));
        } catch (ClassNotFoundException e) {
            throw new InboxException(InboxException.Kind.DECLARATION, "queue " + spec.getQueue() + ": the activation"
                    + " config property table names " + spec.getTable() + ", a class the bean's application does"
                    + " not have: give the class name of its @InboxTable record", e);
        }
    }

    /** The subscription's handler: the job to an endpoint, inside its delivery (transacted: already begun). */
    private Outcome deliver(JsonNode payload, Delivery delivery) throws Exception {
        MessageEndpoint inTransaction = current.get();
        if (inTransaction != null) {
            return ((InboxListener) inTransaction).onJob(payload.toString(), delivery);
        }
        MessageEndpoint endpoint = factory.createEndpoint(null);
        try {
            endpoint.beforeDelivery(ON_JOB);
            try {
                return ((InboxListener) endpoint).onJob(payload.toString(), delivery);
            } finally {
                endpoint.afterDelivery();
            }
        } finally {
            endpoint.release();
        }
    }

    /**
     * Stops the subscription: claims stop, deliveries in work settle until {@code drainTimeout}, the
     * rest go back. Empty when it had not opened yet (it stops trying).
     */
    Optional<ShutdownReport> close(Duration drainTimeout) {
        InboxBroker open;
        synchronized (this) {
            closed = true;
            open = broker;
        }
        return open == null ? Optional.empty() : Optional.of(open.shutdown(drainTimeout));
    }

    /**
     * A transacted bean's deliveries: {@code beforeDelivery} begins the container's transaction on
     * the worker's thread, the settlement runs on the data source inside it, and
     * {@code afterDelivery} ends it, committing unless it was marked for rollback.
     */
    private final class ContainerTransactions implements DeliveryTransactions {
        private final DataSource dataSource;
        private final TransactionSynchronizationRegistry registry;

        ContainerTransactions(DataSource dataSource, TransactionSynchronizationRegistry registry) {
            this.dataSource = dataSource;
            this.registry = registry;
        }

        @Override
        public boolean boundToThread() {
            return true;
        }

        @Override
        public Open begin(InboxSpec table) throws Exception {
            MessageEndpoint endpoint = factory.createEndpoint(null);
            Connection connection;
            try {
                endpoint.beforeDelivery(ON_JOB);
            } catch (ResourceException | RuntimeException e) {
                endpoint.release();
                throw e;
            }
            try {
                connection = dataSource.getConnection();
            } catch (SQLException | RuntimeException e) {
                end(endpoint, false);
                throw e;
            }
            current.set(endpoint);
            return new Open() {
                private boolean ended;

                @Override
                public Connection connection() {
                    return connection;
                }

                @Override
                public void commit() throws Exception {
                    // Marked for rollback by the bean: its writes and the settlement roll back together.
                    boolean rollbackOnly = registry != null
                            && registry.getTransactionStatus() == Status.STATUS_MARKED_ROLLBACK;
                    finish(!rollbackOnly);
                    if (rollbackOnly) {
                        // Not a lost settlement: the row settles apart, as after any rollback.
                        throw new IllegalStateException("the bean marked the container's transaction for rollback,"
                                + " so its ack rolled back with its writes");
                    }
                }

                @Override
                public void rollback() throws Exception {
                    if (!ended) {
                        finish(false);
                    }
                }

                @Override
                public void close() {
                    if (!ended) {
                        try {
                            finish(false);
                        } catch (Exception e) {
                            // the container's transaction ends with afterDelivery regardless
                        }
                    }
                }

                private void finish(boolean commit) throws Exception {
                    ended = true;
                    current.remove();
                    try {
                        connection.close(); // the container keeps the enlisted connection until the transaction ends
                    } catch (SQLException e) {
                        // already closed
                    }
                    end(endpoint, commit);
                }
            };
        }

        /** Ends the container's transaction (marked for rollback first unless committing) and lets the endpoint go. */
        private void end(MessageEndpoint endpoint, boolean commit) throws ResourceException {
            try {
                if (!commit && registry != null && registry.getTransactionStatus() == Status.STATUS_ACTIVE) {
                    registry.setRollbackOnly();
                }
                endpoint.afterDelivery();
            } catch (ResourceException e) {
                if (commit) {
                    throw e;
                }
                // Open Liberty reports the rollback asked for as a failed afterDelivery: the
                // transaction ended all the same, rolled back, which is what this delivery wanted.
                LOG.log(Level.DEBUG, "afterDelivery after a rollback: {0}", e.getMessage());
            } finally {
                endpoint.release();
            }
        }
    }
}
