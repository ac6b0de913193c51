package dev.inbox.jca;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inbox.Delivery;
import dev.inbox.InboxException;
import dev.inbox.InboxListener;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import dev.inbox.engine.DeliveryTransactions;
import dev.inbox.engine.InboxBroker;
import dev.inbox.engine.ShutdownReport;
import dev.inbox.engine.Threads;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.UnavailableException;
import jakarta.resource.spi.endpoint.MessageEndpoint;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Consumer;
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

    private final MessageEndpointFactory factory;
    private final boolean transacted;
    /** The endpoint whose delivery runs on this thread, between its beforeDelivery and afterDelivery. */
    private final ThreadLocal<MessageEndpoint> current = new ThreadLocal<>();
    private InboxBroker broker;

    private EndpointActivation(MessageEndpointFactory factory, boolean transacted) {
        this.factory = factory;
        this.transacted = transacted;
    }

    /**
     * Opens the bean's subscription and starts it; nothing runs when any part of it is refused.
     *
     * @param settings applies the adapter's broker-wide properties
     * @throws InboxException the engine's startup error, or {@code DECLARATION} for a table class the
     *                        bean's application lacks or a transactional option the bean contradicts
     */
    static EndpointActivation open(MessageEndpointFactory factory, InboxActivationSpec spec, DataSource dataSource,
            Threads threads, TransactionSynchronizationRegistry registry, Consumer<InboxBroker> settings)
            throws UnavailableException {
        boolean transacted;
        try {
            transacted = factory.isDeliveryTransacted(ON_JOB);
        } catch (NoSuchMethodException e) {
            throw new InboxException(InboxException.Kind.DECLARATION, "the bean " + factory.getActivationName()
                    + " does not implement " + InboxListener.class.getName() + ".onJob", e);
        }
        EndpointActivation activation = new EndpointActivation(factory, transacted);
        InboxSpec table = table(factory, spec);
        Subscription<JsonNode> subscription = spec.apply(Subscription.of(spec.getQueue(), table, JsonNode.class,
                activation::deliver));
        boolean declared = subscription.get(SubscriptionOption.TRANSACTIONAL);
        if (subscription.setting(SubscriptionOption.TRANSACTIONAL).isPresent() && declared != transacted) {
            throw new InboxException(InboxException.Kind.DECLARATION, "queue " + spec.getQueue() + ": the activation"
                    + " config property transactional is " + declared + ", but the bean " + factory.getActivationName()
                    + (transacted ? " runs onJob in the container's transaction" : " runs onJob without a transaction")
                    + ": remove the property; the bean's transaction attribute (REQUIRED or NOT_SUPPORTED) decides");
        }
        InboxBroker broker = InboxBroker.fromDataSource(dataSource).threads(threads)
                .subscribe(subscription.transactional(transacted));
        if (transacted) {
            broker.deliveryTransactions(activation.new ContainerTransactions(dataSource, registry));
        }
        settings.accept(broker);
        activation.broker = broker.connect();
        return activation;
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

    /** Stops the subscription: claims stop, deliveries in work settle until {@code drainTimeout}, the rest go back. */
    ShutdownReport close(Duration drainTimeout) {
        return broker.shutdown(drainTimeout);
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
            } finally {
                endpoint.release();
            }
        }
    }
}
