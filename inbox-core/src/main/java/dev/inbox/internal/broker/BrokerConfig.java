package dev.inbox.internal.broker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.internal.codec.PayloadCodec;
import dev.inbox.ConnectionPooler;
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
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * A broker's configuration as {@code connect()} found it: immutable, checked, and built without
 * I/O. Where the broker reaches its database (a URL, or the application's DataSource), its
 * settings, its collaborators, and every route and subscription in the order they were given.
 *
 * @param url                  the JDBC URL of a pool the broker builds; null for {@code dataSource}
 * @param driverProperties     the driver's properties for {@code url} (user, password); null for {@code dataSource}
 * @param dataSource           the application's DataSource; null for {@code url}
 * @param settings             the broker-wide options set on the broker; the others take their default
 * @param deliveryTransactions how transactional deliveries open their transaction; null for JDBC on the broker's pool
 * @param wakeElsewhere        told of rows made visible in a queue no subscription of this broker takes
 * @param publishTimeout       how long a publish's insert may wait for a lock: its JDBC query timeout
 * @param pauseTable           the table of paused queues
 * @param routes               every queue's table: those routed and those subscribed
 * @param scheduleTable        the table of the recurring jobs' next due times
 * @param recurring            the recurring jobs, in the order they were given
 * @param subscriberTable      the table of each queue table's subscribers and their declarations
 * @param connectionPooler     what stands between the broker and its database, as declared
 * @param tracing              how publishes and deliveries are traced ({@link JobTracing#NONE} for not at all)
 */
public record BrokerConfig(String url, Properties driverProperties, DataSource dataSource,
        Map<SubscriptionOption<?>, Object> settings, int connectionLimit, Duration listenProbeInterval,
        Duration publishTimeout, String pauseTable, List<Dialect> dialects, Clock clock, ObjectMapper json,
        PayloadCodec payloads,
        Threads threads, BrokerListener listener,
        Executor handlerContext, DeliveryTransactions deliveryTransactions, Consumer<String> wakeElsewhere,
        Map<String, InboxSpec> routes,
        List<Subscription<?>> subscriptions, String scheduleTable, List<RecurringJob<?>> recurring,
        String subscriberTable, ConnectionPooler connectionPooler, JobTracing tracing) {

    public BrokerConfig {
        settings = Map.copyOf(settings);
        dialects = List.copyOf(dialects);
        routes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(routes));
        subscriptions = List.copyOf(subscriptions);
        recurring = List.copyOf(recurring);
    }

    /** The broker's value of a broker-wide option. */
    <V> V setting(SubscriptionOption<V> option) {
        Object value = settings.get(option);
        return value != null ? option.type().cast(value) : option.defaultValue();
    }

    /** The subscription's value of a broker-wide option, else the broker's. */
    <V> V setting(Subscription<?> subscription, SubscriptionOption<V> option) {
        return subscription.setting(option).orElseGet(() -> setting(option));
    }
}
