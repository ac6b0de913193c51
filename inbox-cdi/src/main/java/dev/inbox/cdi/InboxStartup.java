package dev.inbox.cdi;

import dev.inbox.BrokerHealth;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.QueueHealth;
import dev.inbox.RecurringJob;
import dev.inbox.Subscription;
import dev.inbox.engine.InboxBroker;
import dev.inbox.jca.InboxAdapter;
import dev.inbox.jca.JndiDataSources;
import dev.inbox.jca.Registration;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.JobTracing;
import jakarta.enterprise.concurrent.ContextService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Opens the application's handlers on the resource adapter when its web module starts, on a
 * thread of the module ({@link InboxWebListener}): the handler beans are created here, the
 * module's context is captured for the adapter's threads, and its data source is looked up. Shuts
 * them down when the module stops.
 */
@ApplicationScoped
public class InboxStartup {
    private static final System.Logger LOG = System.getLogger(InboxStartup.class.getName());
    /** How long a start waits for the server to bind the adapter's object. */
    private static final Duration ADAPTER_BINDING_WAIT = Duration.ofSeconds(10);

    @Inject
    BeanManager beans;

    @Inject
    InboxExtension extension;

    @Inject
    Instance<RequestContextController> requestContexts;

    private volatile InboxBroker broker;
    /** Deliveries per minute, for the console's sparklines. */
    private final Throughput throughput = new Throughput(java.time.Clock.systemUTC());
    /** The application's metrics where it sees MicroProfile Telemetry (typed so that this class loads without it). */
    private BrokerListener metrics;
    private InboxAdapter adapter;
    private String application;
    /** The application's class loader, which tells its message-driven beans on the adapter from others'. */
    private ClassLoader classes;

    /** Opens the application's handlers; {@link InboxWebListener} calls it as the web module starts. */
    void start() throws NamingException, InterruptedException {
        InitialContext names = new InitialContext();
        application = (String) names.lookup("java:app/AppName");
        classes = Thread.currentThread().getContextClassLoader();
        ContextService contexts = (ContextService) names.lookup("java:comp/DefaultContextService");
        UserTransaction userTransaction = (UserTransaction) names.lookup("java:comp/UserTransaction");
        TransactionSynchronizationRegistry transactionRegistry = (TransactionSynchronizationRegistry) names
                .lookup("java:comp/TransactionSynchronizationRegistry");
        Config config = ConfigProvider.getConfig();
        adapter = adapter(config.getOptionalValue(ConfigKeys.ADAPTER, String.class)
                .orElse(InboxAdapter.DEFAULT_JNDI_NAME));
        String dataSourceName = config.getOptionalValue(ConfigKeys.DATA_SOURCE, String.class)
                .orElse(adapter.getDataSource());
        DataSource dataSource = lookup(dataSourceName);

        List<Subscription<?>> subscriptions = new ArrayList<>();
        Map<String, InboxSpec> routes = new LinkedHashMap<>();
        for (HandlerMethod handler : extension.handlers().values()) {
            subscriptions.add(QueueOptions.apply(subscription(handler), extension.options(handler.queue())));
            routes.put(handler.queue(), handler.table());
        }
        routes.putAll(extension.publishedTables());
        Executor context = contexts.currentContextExecutor();
        List<RecurringJob<?>> recurring = new ArrayList<>();
        for (RecurringMethod method : extension.recurring().values()) {
            if (method.table() != null) {
                routes.putIfAbsent(method.queue(), method.table());
            }
            recurring.add(method.job(config, new RecurringCall(method, reference(method.bean()), requestContexts,
                    context)));
        }
        metrics = InboxExtension.seesTelemetry() ? InboxMetrics.onContainerMeter(beans, () -> broker) : null;
        BrokerListener listener = metrics == null ? throughput : BrokerListener.all(List.of(metrics, throughput));
        JobTracing tracing = InboxExtension.seesTelemetry() ? InboxTracing.onContainerTelemetry(beans) : null;
        broker = adapter.register(new Registration(application, dataSource, subscriptions, routes,
                context, new JtaDeliveryTransactions(dataSource, userTransaction, transactionRegistry),
                extension.brokerSettings(), extension.drainTimeout(), listener, recurring, extension.pauseTable(),
                extension.scheduleTable(), extension.subscriberTable(), extension.connectionPooler(), tracing,
                extension.payloadJson().codec(beans)));
        LOG.log(Level.INFO, "Inbox: application {0} opened {1} handler(s){2} on data source {3}{4}", application,
                subscriptions.size(), recurring.isEmpty() ? "" : " and " + recurring.size() + " recurring job(s)",
                dataSourceName, metrics != null ? "; its metrics go to MicroProfile Telemetry" : "");
    }

    /** Shuts the application's broker down; {@link InboxWebListener} calls it as the web module stops. */
    void stop() {
        if (broker != null) {
            adapter.unregister(application);
        }
        if (metrics != null) {
            ((InboxMetrics) metrics).close();
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private Subscription<?> subscription(HandlerMethod handler) {
        HandlerCall call = new HandlerCall<>(handler, reference(handler.bean()), requestContexts);
        if (handler.batch()) {
            Class<?> element = erase(handler.payloadType());
            return Subscription.ofBatch(handler.queue(), handler.table(), (Class) element, call);
        }
        return Subscription.of(handler.queue(), handler.table(), handler.payloadType(), call);
    }

    /** The bean's contextual reference, for calls from the adapter's threads. */
    private Object reference(Bean<?> bean) {
        return beans.getReference(bean, bean.getBeanClass(), beans.createCreationalContext(bean));
    }

    private static Class<?> erase(java.lang.reflect.Type type) {
        if (type instanceof Class<?> c) {
            return c;
        }
        if (type instanceof java.lang.reflect.ParameterizedType p) {
            return (Class<?>) p.getRawType();
        }
        throw new InboxException(InboxException.Kind.DECLARATION, "a batch handler's payload type must be a class: "
                + type.getTypeName());
    }

    /**
     * The adapter's administered object, which the server binds at {@code name}. The server may
     * bind the object of a RAR in the same EAR a moment after the application's start begins, so
     * a name not bound yet is looked up again for a few seconds before the start fails in one line.
     */
    private static InboxAdapter adapter(String name) throws InterruptedException {
        long deadline = System.nanoTime() + ADAPTER_BINDING_WAIT.toNanos();
        while (true) {
            try {
                return (InboxAdapter) new InitialContext().lookup(name);
            } catch (NamingException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw noAdapter(name, e);
                }
                Thread.sleep(100);
            } catch (ClassCastException e) {
                throw noAdapter(name, e);
            }
        }
    }

    private static ConfigurationProblem noAdapter(String name, Exception e) {
        return new ConfigurationProblem("no Inbox adapter at JNDI name " + name + " (" + e.getMessage() + "): bind the"
                + " adapter's administered object there, on Open Liberty with <adminObject jndiName=\"" + name + "\">"
                + "<properties.APP.RAR/></adminObject> for the RAR in this application's EAR (APP the application's"
                + " name in the server configuration, RAR the RAR module's, as inbox), or <properties.ID/> for a"
                + " standalone <resourceAdapter id=\"ID\">; or set MicroProfile Config " + ConfigKeys.ADAPTER
                + " to the JNDI name of yours");
    }

    private static DataSource lookup(String name) {
        return JndiDataSources.lookup(name, "declare a data source there (Open Liberty: <dataSource jndiName=\""
                + name + "\"> in server.xml; WildFly: data-source add --jndi-name=" + name + "), or set MicroProfile"
                + " Config inbox.datasource to the name of yours");
    }

    /**
     * The application's broker's health, with its message-driven beans' subscriptions on the
     * adapter; not running before the application started or after it stopped.
     */
    BrokerHealth health() {
        InboxBroker current = broker;
        if (current == null) {
            return BrokerHealth.notRunning();
        }
        BrokerHealth own = current.health();
        List<QueueHealth> beans = adapter.beans(classes);
        if (beans.isEmpty()) {
            return own;
        }
        List<QueueHealth> all = new ArrayList<>(own.queues());
        all.addAll(beans);
        all.sort(java.util.Comparator.comparing(QueueHealth::queue));
        return new BrokerHealth(own.running(), List.copyOf(all), own.listener());
    }

    /** Whether the health checks say why a queue is down ({@code inbox.health.details}). */
    boolean healthDetails() {
        return extension.healthDetails();
    }

    /** The most characters of a dead letter's payload the console reads ({@code inbox.console.payload-limit}). */
    int payloadLimit() {
        return extension.payloadLimit();
    }

    Throughput throughput() {
        return throughput;
    }

    /** The application's broker; fails with {@code CLOSED} before the application started or after it stopped. */
    InboxBroker broker() {
        InboxBroker current = broker;
        if (current == null) {
            throw new InboxException(InboxException.Kind.CLOSED, "Inbox has not started for this application yet:"
                    + " publish once the application has started");
        }
        return current;
    }
}
