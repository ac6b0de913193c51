package dev.inbox.jca;

import dev.inbox.ConnectionPooler;
import dev.inbox.Durations;
import dev.inbox.InboxSpec;
import dev.inbox.RecurringJob;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import dev.inbox.engine.InboxBroker;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.JobTracing;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * What an application hands the adapter when it starts: its data source, its subscriptions and
 * routes, and how to run code in its context. Built by the CDI extension.
 *
 * @param application  the application's name, for logs and to tell registrations apart
 * @param dataSource   the application's (JTA) data source, looked up in its context
 * @param subscriptions the subscriptions of its handler methods
 * @param routes       queue to table, for every queue it handles or publishes to
 * @param context      runs a delivery in the application's context (a contextual executor)
 * @param transactions how transactional deliveries open their (JTA) transaction
 * @param settings     the {@linkplain SubscriptionOption#brokerWide() broker-wide} options the application
 *                     sets ({@code inbox.<option>}); the adapter's properties set the others
 * @param drainTimeout how long deliveries in work may settle when the application stops
 *                     ({@code inbox.drain-timeout}); null for the adapter's {@code DrainTimeout}
 * @param listener     hears the broker's events (the application's metrics); null for none
 * @param recurring    the application's recurring jobs; null for none
 * @param pauseTable   the table of paused queues ({@code inbox.pause-table}); null for the adapter's
 *                     {@code PauseTable}, else the engine's default
 * @param scheduleTable the table of the recurring jobs' due times ({@code inbox.schedule-table}); null
 *                     for the engine's default
 * @param subscriberTable the table of each queue table's subscribers ({@code inbox.subscriber-table});
 *                     null for the engine's default
 * @param connectionPooler what stands between the broker and the database ({@code inbox.connection-pooler});
 *                     null for the adapter's {@code ConnectionPooler}, else none
 * @param tracing      traces the broker's publishes and deliveries (MicroProfile Telemetry's); null for none
 * @param payloadCodec hands the application's mapper of payloads ({@code @InboxJson}) to its broker; null
 *                     for Inbox's Jackson
 */
public record Registration(String application, DataSource dataSource, List<Subscription<?>> subscriptions,
        Map<String, InboxSpec> routes, Executor context, DeliveryTransactions transactions,
        Map<SubscriptionOption<?>, Object> settings, Duration drainTimeout, BrokerListener listener,
        List<RecurringJob<?>> recurring, String pauseTable, String scheduleTable,
        String subscriberTable, ConnectionPooler connectionPooler, JobTracing tracing,
        Consumer<InboxBroker> payloadCodec) {

    public Registration {
        recurring = recurring == null ? List.of() : List.copyOf(recurring);
    }

    /** A registration that traces nothing, whose payloads go through Inbox's Jackson. */
    public Registration(String application, DataSource dataSource, List<Subscription<?>> subscriptions,
            Map<String, InboxSpec> routes, Executor context, DeliveryTransactions transactions,
            Map<SubscriptionOption<?>, Object> settings, Duration drainTimeout, BrokerListener listener,
            List<RecurringJob<?>> recurring, String pauseTable, String scheduleTable,
            String subscriberTable, ConnectionPooler connectionPooler) {
        this(application, dataSource, subscriptions, routes, context, transactions, settings, drainTimeout, listener,
                recurring, pauseTable, scheduleTable, subscriberTable, connectionPooler, null, null);
    }

    /**
     * A drain timeout as a setting gives it: a duration, not negative (0 gives deliveries in work
     * back at once).
     *
     * @param setting names the setting in the message ({@code MicroProfile Config key inbox.drain-timeout})
     * @throws IllegalArgumentException naming the setting and what it takes
     */
    public static Duration drainTimeout(String setting, String text) {
        Duration drain;
        try {
            drain = Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(setting + ": " + e.getMessage(), e);
        }
        if (drain.isNegative()) {
            throw new IllegalArgumentException(setting + " = " + text.trim() + " is negative: give the time deliveries"
                    + " in work may take to settle when an application stops, 0 to give them back at once");
        }
        return drain;
    }
}
