package dev.inbox.jca;

import dev.inbox.Durations;
import dev.inbox.InboxException;
import dev.inbox.engine.InboxBroker;
import dev.inbox.engine.ShutdownReport;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ActivationSpec;
import jakarta.resource.spi.BootstrapContext;
import jakarta.resource.spi.ResourceAdapter;
import jakarta.resource.spi.ResourceAdapterInternalException;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import java.io.Serializable;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import javax.transaction.xa.XAResource;

/**
 * The Inbox resource adapter: owns the threads (claim loops, lease keepers, workers) as Work under
 * the server's WorkManager, and one engine broker per application that registers its handlers.
 * Its properties (ra.xml, or the server's {@code <resourceAdapter>} properties) set the defaults
 * the applications' MicroProfile Config may override.
 */
public class InboxResourceAdapter implements ResourceAdapter, Serializable {
    private static final long serialVersionUID = 1L;
    private static final System.Logger LOG = System.getLogger(InboxResourceAdapter.class.getName());
    private static volatile InboxResourceAdapter running;

    private String dataSource = "jdbc/inbox";
    private String lease = "30s";
    private String pollInterval = "1s";
    private Boolean listenNotify = Boolean.FALSE;
    private String drainTimeout = "30s";

    private transient WorkManagerThreads threads;
    private final transient Map<String, InboxBroker> brokers = new ConcurrentHashMap<>();

    /** The adapter the server started, for the applications deployed beside it. */
    public static InboxResourceAdapter running() {
        InboxResourceAdapter adapter = running;
        if (adapter == null) {
            throw new InboxException(InboxException.Kind.CLOSED, "the Inbox resource adapter is not running: deploy"
                    + " inbox-rar (the RAR) in the application's EAR, beside the module with the handlers");
        }
        return adapter;
    }

    @Override
    public void start(BootstrapContext context) throws ResourceAdapterInternalException {
        threads = new WorkManagerThreads(context.getWorkManager());
        running = this;
        LOG.log(Level.INFO, "Inbox resource adapter started (data source {0}, lease {1}, poll interval {2})",
                dataSource, lease, pollInterval);
    }

    /**
     * Opens a broker for an application: connects to its data source and opens its subscriptions,
     * whose deliveries run on the adapter's Work threads in the application's context.
     *
     * @throws InboxException any startup error of the engine, for the application to fail its start with
     */
    public InboxBroker register(Registration registration) {
        Objects.requireNonNull(registration, "registration");
        if (threads == null) {
            throw new InboxException(InboxException.Kind.CLOSED, "the Inbox resource adapter has stopped");
        }
        InboxBroker broker = InboxBroker.fromDataSource(registration.dataSource())
                .lease(registration.lease() != null ? registration.lease() : Durations.parse(lease))
                .pollInterval(registration.pollInterval() != null ? registration.pollInterval()
                        : Durations.parse(pollInterval))
                .listenNotify(registration.listenNotify() != null ? registration.listenNotify() : listenNotify)
                .threads(threads)
                .handlerContext(registration.context());
        if (registration.transactions() != null) {
            broker.deliveryTransactions(registration.transactions());
        }
        registration.routes().forEach(broker::route);
        registration.subscriptions().forEach(broker::subscribe);
        InboxBroker previous = brokers.put(registration.application(), broker);
        if (previous != null) {
            previous.shutdown(Durations.parse(drainTimeout));
        }
        try {
            return broker.connect();
        } catch (RuntimeException e) {
            brokers.remove(registration.application(), broker);
            throw e;
        }
    }

    /** Shuts the application's broker down, after the container drained its requests. */
    public ShutdownReport unregister(String application) {
        InboxBroker broker = brokers.remove(application);
        return broker == null ? null : broker.shutdown(Durations.parse(drainTimeout));
    }

    @Override
    public void stop() {
        brokers.keySet().forEach(this::unregister);
        running = null;
        threads = null;
        LOG.log(Level.INFO, "Inbox resource adapter stopped");
    }

    @Override
    public void endpointActivation(MessageEndpointFactory factory, ActivationSpec spec) throws ResourceException {
        throw new jakarta.resource.NotSupportedException("Inbox handlers are CDI bean methods with an @Inbound"
                + " parameter, not message-driven beans");
    }

    @Override
    public void endpointDeactivation(MessageEndpointFactory factory, ActivationSpec spec) {
        // no message endpoints
    }

    @Override
    public XAResource[] getXAResources(ActivationSpec[] specs) {
        return null;
    }

    public String getDataSource() {
        return dataSource;
    }

    public void setDataSource(String value) {
        dataSource = value;
    }

    public String getLease() {
        return lease;
    }

    public void setLease(String value) {
        lease = value;
    }

    public String getPollInterval() {
        return pollInterval;
    }

    public void setPollInterval(String value) {
        pollInterval = value;
    }

    public Boolean getListenNotify() {
        return listenNotify;
    }

    public void setListenNotify(Boolean value) {
        listenNotify = value;
    }

    public String getDrainTimeout() {
        return drainTimeout;
    }

    public void setDrainTimeout(String value) {
        drainTimeout = value;
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
