package dev.inbox.cdi;

import dev.inbox.ConnectionPooler;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Publisher;
import dev.inbox.SubscriptionOption;
import dev.inbox.jca.Registration;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.InjectionPoint;
import jakarta.enterprise.inject.spi.ProcessBean;
import jakarta.enterprise.inject.spi.ProcessInjectionPoint;
import jakarta.enterprise.inject.spi.ProcessManagedBean;
import java.lang.System.Logger.Level;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Finds every bean method with an {@code @Inbound} parameter when the application deploys, checks
 * it, and fails the deployment with a message naming class, method and what to change. It reads
 * the options of every handler's queue from MicroProfile Config and the annotation, fails the
 * deployment on a value it cannot use (one line, no stack trace), and warns of {@code inbox.*}
 * keys it does not read. The handlers it found are opened on the resource adapter when the
 * application starts ({@link InboxStartup}).
 */
public class InboxExtension implements Extension {
    private static final System.Logger LOG = System.getLogger(InboxExtension.class.getName());

    private final Map<String, HandlerMethod> handlers = new LinkedHashMap<>();
    private final Map<String, RecurringMethod> recurring = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();
    private final PublisherRoutes publishers = new PublisherRoutes();
    private final Map<String, Map<SubscriptionOption<?>, Object>> options = new LinkedHashMap<>();
    private Map<SubscriptionOption<?>, Object> brokerSettings = Map.of();
    private Duration drainTimeout;
    private String pauseTable;
    private String scheduleTable;
    private String subscriberTable;
    /** {@code inbox.connection-pooler}; null for the adapter's. */
    private ConnectionPooler connectionPooler;
    private boolean healthDetails;
    private int payloadLimit = PAYLOAD_LIMIT;
    private final PayloadJson payloadJson = new PayloadJson();

    void addBeans(@Observes BeforeBeanDiscovery event, BeanManager manager) {
        event.addAnnotatedType(manager.createAnnotatedType(InboxStartup.class), InboxStartup.class.getName());
        event.addAnnotatedType(manager.createAnnotatedType(PublisherProducer.class), PublisherProducer.class.getName());
        event.addAnnotatedType(manager.createAnnotatedType(ApplicationAdmin.class), ApplicationAdmin.class.getName());
        if (servesHealth()) {
            for (Class<?> check : new Class<?>[] {InboxHealth.Ready.class, InboxHealth.Live.class,
                    InboxHealth.Started.class}) {
                event.addAnnotatedType(manager.createAnnotatedType(check), check.getName());
            }
        } else {
            LOG.log(Level.INFO, "Inbox: this application does not see the MicroProfile Health API, so Inbox adds"
                    + " no health checks; enable the server's MicroProfile Health (Open Liberty: mpHealth-4.0;"
                    + " WildFly: the microprofile-health-smallrye subsystem)");
        }
    }

    /** True where the server serves MicroProfile Health (Liberty's mpHealth feature, WildFly's subsystem). */
    private static boolean servesHealth() {
        return visible("org.eclipse.microprofile.health.HealthCheck");
    }

    /**
     * True where the application sees the OpenTelemetry API: the server has MicroProfile Telemetry
     * (Liberty's mpTelemetry-2.0, with third-party APIs visible to the application).
     */
    static boolean seesTelemetry() {
        return visible("io.opentelemetry.api.metrics.Meter");
    }

    private static boolean visible(String className) {
        try {
            Class.forName(className, false, InboxExtension.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    <T> void findHandlers(@Observes ProcessManagedBean<T> event) {
        for (AnnotatedMethod<? super T> method : event.getAnnotatedBeanClass().getMethods()) {
            try {
                HandlerMethod handler = HandlerMethod.of(event.getBean(), method);
                HandlerMethod other = handler == null ? null : handlers.putIfAbsent(handler.queue(), handler);
                if (other != null) {
                    problems.add("queue " + handler.queue() + " has two handlers, " + other.describe() + " and "
                            + handler.describe() + ": a queue has one handler method (raise its workers for more)");
                }
            } catch (InboxException e) {
                problems.add(e.detail());
            }
            try {
                RecurringMethod job = RecurringMethod.of(event.getBean(), method);
                RecurringMethod other = job == null ? null : recurring.putIfAbsent(job.name(), job);
                if (other != null) {
                    problems.add("recurring job " + job.name() + " is declared by " + other.describe() + " and by "
                            + job.describe() + ": give each @Recurring its own name");
                }
            } catch (InboxException e) {
                problems.add(e.detail());
            }
        }
    }

    <T, X> void findPublishers(@Observes ProcessInjectionPoint<T, X> event) {
        InjectionPoint point = event.getInjectionPoint();
        Type type = point.getType();
        Type raw = type instanceof ParameterizedType p ? p.getRawType() : type;
        if (raw != Publisher.class) {
            return;
        }
        point.getQualifiers().stream().filter(Queue.class::isInstance).map(Queue.class::cast).findFirst()
                .ifPresent(queue -> publishers.add(queue.value(), queue.table(),
                        point.getMember().getDeclaringClass().getName() + "." + point.getMember().getName()));
    }

    void report(@Observes AfterBeanDiscovery event) {
        problems.addAll(publishers.problems(handlers));
        for (RecurringMethod job : recurring.values()) {
            HandlerMethod handler = handlers.get(job.queue());
            if (job.table() == null && handler == null && !publishers.tables().containsKey(job.queue())) {
                problems.add("recurring method " + job.describe() + " publishes into queue " + job.queue() + ", which no"
                        + " handler method of this application takes, so Inbox does not know its table: name it,"
                        + " @Recurring(..., table = YourJobTable.class), or check the queue's name");
            } else if (job.table() != null && handler != null && !handler.table().equals(job.table())) {
                problems.add("recurring method " + job.describe() + " names table " + job.table().table() + " for queue "
                        + job.queue() + ", but its handler " + handler.describe() + " takes it from table "
                        + handler.table().table() + ": leave table out of @Recurring, or name the same record");
            }
        }
        problems.forEach(problem -> event.addDefinitionError(new DeploymentException(problem)));
    }

    void findPayloadJson(@Observes ProcessBean<?> event) {
        payloadJson.see(event.getBean());
    }

    void checkPayloadJson(@Observes AfterDeploymentValidation event) {
        payloadJson.problem().ifPresent(event::addDeploymentProblem);
    }

    /** The application's {@code @InboxJson} mapper of payloads. */
    PayloadJson payloadJson() {
        return payloadJson;
    }

    void readConfiguration(@Observes AfterDeploymentValidation event) {
        Config config = ConfigProvider.getConfig();
        try {
            brokerSettings = QueueOptions.brokerSettings(config);
            for (HandlerMethod handler : handlers.values()) {
                options.put(handler.queue(), QueueOptions.resolve(handler.queue(), handler.inbound(), config));
            }
            drainTimeout = drainTimeout(config);
            pauseTable = table(config, ConfigKeys.PAUSE_TABLE);
            scheduleTable = table(config, ConfigKeys.SCHEDULE_TABLE);
            subscriberTable = table(config, ConfigKeys.SUBSCRIBER_TABLE);
            connectionPooler = config.getOptionalValue(ConfigKeys.CONNECTION_POOLER, String.class)
                    .map(text -> ConnectionPooler.parse("MicroProfile Config key " + ConfigKeys.CONNECTION_POOLER, text))
                    .orElse(null);
            healthDetails = flag(config, ConfigKeys.HEALTH_DETAILS);
            payloadLimit = payloadLimit(config);
            for (RecurringMethod job : recurring.values()) {
                job.job(config, due -> null); // the keys it reads hold values it can use
            }
        } catch (InboxException e) {
            event.addDeploymentProblem(new ConfigurationProblem(e.getMessage()));
            return;
        }
        ConfigKeys.unknown(config.getPropertyNames(), handlers.keySet(), recurring.keySet())
                .forEach(warning -> LOG.log(Level.WARNING, warning));
    }

    /** The application's {@code inbox.drain-timeout}, or null for the adapter's. */
    private static Duration drainTimeout(Config config) {
        return config.getOptionalValue(ConfigKeys.DRAIN_TIMEOUT, String.class)
                .map(value -> {
                    try {
                        return Registration.drainTimeout("MicroProfile Config key " + ConfigKeys.DRAIN_TIMEOUT, value);
                    } catch (IllegalArgumentException e) {
                        throw new InboxException(InboxException.Kind.DECLARATION, e.getMessage());
                    }
                })
                .orElse(null);
    }

    /** A table name {@code key} sets, checked before it reaches SQL; null where unset. */
    private static String table(Config config, String key) {
        return config.getOptionalValue(key, String.class).map(String::trim).map(name -> {
            try {
                return dev.inbox.Identifiers.checkTable(name);
            } catch (InboxException e) {
                throw new InboxException(InboxException.Kind.DECLARATION, "MicroProfile Config key " + key + ": "
                        + e.detail());
            }
        }).orElse(null);
    }

    /** A setting that is {@code true} or {@code false} (any case); false where unset. */
    static boolean flag(Config config, String key) {
        return flag(config, key, false);
    }

    /**
     * A setting that is {@code true} or {@code false} (any case); {@code unset} where unset. Anything
     * else is refused: MicroProfile's Boolean converter reads a typo as false, and "flase" would then
     * turn a feature off without a word.
     */
    static boolean flag(Config config, String key, boolean unset) {
        return config.getOptionalValue(key, String.class).map(String::trim).map(value -> {
            if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                throw new InboxException(InboxException.Kind.DECLARATION, "MicroProfile Config key " + key + " = '"
                        + value + "' is neither true nor false: write one of them");
            }
            return Boolean.parseBoolean(value);
        }).orElse(unset);
    }

    /** The console's payload limit where {@code inbox.console.payload-limit} is unset. */
    static final int PAYLOAD_LIMIT = 1_000_000;

    /** {@code inbox.console.payload-limit}: a whole number of characters from 1 to 100,000,000. */
    static int payloadLimit(Config config) {
        return config.getOptionalValue(ConfigKeys.CONSOLE_PAYLOAD_LIMIT, String.class).map(String::trim).map(value -> {
            try {
                int limit = Integer.parseInt(value.replace("_", ""));
                if (limit >= 1 && limit <= 100_000_000) {
                    return limit;
                }
            } catch (NumberFormatException e) {
                // answered below
            }
            throw new InboxException(InboxException.Kind.DECLARATION, "MicroProfile Config key "
                    + ConfigKeys.CONSOLE_PAYLOAD_LIMIT + " = '" + value + "' is not a number of characters from 1 to"
                    + " 100000000: write one, such as 1000000");
        }).orElse(PAYLOAD_LIMIT);
    }

    /** The most characters of a dead letter's payload the console reads ({@code inbox.console.payload-limit}). */
    int payloadLimit() {
        return payloadLimit;
    }

    /** The application's {@code inbox.health.details}: whether its health checks say why a queue is down. */
    boolean healthDetails() {
        return healthDetails;
    }

    /** The application's {@code inbox.pause-table}; null for the adapter's {@code PauseTable} or the default. */
    String pauseTable() {
        return pauseTable;
    }

    /** The application's {@code inbox.subscriber-table}; null for the default. */
    String subscriberTable() {
        return subscriberTable;
    }

    /** The application's {@code inbox.connection-pooler}, or null for the adapter's. */
    ConnectionPooler connectionPooler() {
        return connectionPooler;
    }

    /** The application's {@code inbox.schedule-table}; null for the default. */
    String scheduleTable() {
        return scheduleTable;
    }

    /** The application's {@code inbox.drain-timeout}, or null for the adapter's. */
    Duration drainTimeout() {
        return drainTimeout;
    }

    /** The options of {@code queue}'s handler, as the annotation and the configuration set them. */
    Map<SubscriptionOption<?>, Object> options(String queue) {
        return options.getOrDefault(queue, Map.of());
    }

    /** The broker-wide options the configuration sets. */
    Map<SubscriptionOption<?>, Object> brokerSettings() {
        return brokerSettings;
    }

    /** The tables of queues the application publishes to without a handler, by queue ({@code @Queue(table)}). */
    Map<String, InboxSpec> publishedTables() {
        return publishers.tables();
    }

    /** The recurring methods found, by job name. */
    Map<String, RecurringMethod> recurring() {
        return Collections.unmodifiableMap(recurring);
    }

    /** The handlers found, by queue. */
    Map<String, HandlerMethod> handlers() {
        return Collections.unmodifiableMap(handlers);
    }
}
