package dev.inbox.cdi;

import dev.inbox.Durations;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Subscription;
import dev.inbox.engine.InboxBroker;
import dev.inbox.jca.InboxResourceAdapter;
import dev.inbox.jca.Registration;
import jakarta.enterprise.concurrent.ContextService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Opens the application's handlers on the resource adapter when the application starts, on an
 * application thread: the handler beans are created here, the application's context is captured
 * for the adapter's threads, and its data source is looked up. Shuts them down before the
 * application stops.
 */
@ApplicationScoped
public class InboxStartup {
    private static final System.Logger LOG = System.getLogger(InboxStartup.class.getName());

    @Inject
    BeanManager beans;

    @Inject
    InboxExtension extension;

    @Inject
    Instance<RequestContextController> requestContexts;

    private volatile InboxBroker broker;
    private String application;

    void start(@Observes @Initialized(ApplicationScoped.class) Object started) throws NamingException {
        Config config = ConfigProvider.getConfig();
        InboxResourceAdapter adapter = InboxResourceAdapter.running();
        application = (String) new InitialContext().lookup("java:app/AppName");
        String dataSourceName = config.getOptionalValue(ConfigKeys.DATA_SOURCE, String.class)
                .orElse(adapter.getDataSource());
        DataSource dataSource = lookup(dataSourceName);
        ContextService contexts = (ContextService) new InitialContext().lookup("java:comp/DefaultContextService");

        List<Subscription<?>> subscriptions = new ArrayList<>();
        Map<String, InboxSpec> routes = new LinkedHashMap<>();
        for (HandlerMethod handler : extension.handlers().values()) {
            subscriptions.add(QueueOptions.apply(subscription(handler), extension.options(handler.queue())));
            routes.put(handler.queue(), handler.table());
        }
        broker = adapter.register(new Registration(application, dataSource, subscriptions, routes,
                contexts.currentContextExecutor(), new JtaDeliveryTransactions(dataSource),
                extension.brokerSettings(), drainTimeout(config)));
        LOG.log(Level.INFO, "Inbox: application {0} opened {1} handler(s) on data source {2}", application,
                subscriptions.size(), dataSourceName);
    }

    void stop(@Observes @BeforeDestroyed(ApplicationScoped.class) Object stopping) {
        if (broker != null) {
            InboxResourceAdapter.running().unregister(application);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private Subscription<?> subscription(HandlerMethod handler) {
        Bean<?> bean = handler.bean();
        Object instance = beans.getReference(bean, bean.getBeanClass(), beans.createCreationalContext(bean));
        HandlerCall call = new HandlerCall<>(handler, instance, requestContexts);
        if (handler.batch()) {
            Class<?> element = erase(handler.payloadType());
            return Subscription.ofBatch(handler.queue(), handler.table(), (Class) element, call);
        }
        return Subscription.of(handler.queue(), handler.table(), handler.payloadType(), call);
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

    /** The application's {@code inbox.drain-timeout}, or null for the adapter's. */
    private static Duration drainTimeout(Config config) {
        return config.getOptionalValue(ConfigKeys.DRAIN_TIMEOUT, String.class)
                .map(value -> {
                    Duration drain;
                    try {
                        drain = Durations.parse(value);
                    } catch (IllegalArgumentException e) {
                        throw new InboxException(InboxException.Kind.DECLARATION, "MicroProfile Config key "
                                + ConfigKeys.DRAIN_TIMEOUT + ": " + e.getMessage());
                    }
                    if (drain.isNegative()) {
                        throw new InboxException(InboxException.Kind.DECLARATION, "MicroProfile Config key "
                                + ConfigKeys.DRAIN_TIMEOUT + " = " + value + " is negative: give the time deliveries in"
                                + " work may take to settle when the application stops, 0 to give them back at once");
                    }
                    return drain;
                })
                .orElse(null);
    }

    private static DataSource lookup(String name) {
        try {
            return (DataSource) new InitialContext().lookup(name);
        } catch (NamingException | ClassCastException e) {
            throw new InboxException(InboxException.Kind.CONNECT, "no data source at JNDI name " + name + " ("
                    + e.getMessage() + "): declare a <dataSource jndiName=\"" + name + "\"> in server.xml, or set"
                    + " inbox.datasource to the name of yours");
        }
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
