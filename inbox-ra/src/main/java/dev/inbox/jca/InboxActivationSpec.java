package dev.inbox.jca;

import dev.inbox.InboxException;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ActivationSpec;
import jakarta.resource.spi.InvalidPropertyException;
import jakarta.resource.spi.ResourceAdapter;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a message-driven bean implementing {@link dev.inbox.InboxListener} subscribes: its queue, the
 * {@code @InboxTable} record class that describes the queue's table, the JNDI name of the data
 * source, and the subscription options, each under its {@link dev.inbox.Inbound} attribute name
 * ({@code workers}, {@code batchSize}, {@code lease}, {@code maxAttempts}, {@code deadLetter},
 * {@code transactional}, ...) with the values MicroProfile Config takes. {@link #validate()} checks
 * every value with the same messages.
 */
public class InboxActivationSpec implements ActivationSpec, Serializable {
    private static final long serialVersionUID = 1L;

    private String queue;
    private String table;
    private String dataSource;
    /** The options set, by name; what is not here takes its default. */
    private final Map<String, String> options = new LinkedHashMap<>();
    private transient ResourceAdapter adapter;

    @Override
    public void validate() throws InvalidPropertyException {
        if (queue == null || queue.isBlank()) {
            throw new InvalidPropertyException("the activation config property queue is missing: name the queue the"
                    + " bean handles");
        }
        if (table == null || table.isBlank()) {
            throw new InvalidPropertyException("queue " + queue + ": the activation config property table is missing:"
                    + " give the class name of the @InboxTable record that describes the queue's table");
        }
        try {
            for (SubscriptionOption<?> option : SubscriptionOption.all()) {
                parsed(option);
            }
        } catch (InboxException e) {
            throw new InvalidPropertyException(e.getMessage());
        }
    }

    /** {@code subscription} with every option this spec sets. */
    <T> Subscription<T> apply(Subscription<T> subscription) {
        Subscription<T> result = subscription;
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            result = with(result, option);
        }
        return result;
    }

    private <T, V> Subscription<T> with(Subscription<T> subscription, SubscriptionOption<V> option) {
        V value = parsed(option);
        return value == null ? subscription : subscription.with(option, value);
    }

    private <V> V parsed(SubscriptionOption<V> option) {
        String text = options.get(option.name());
        return text == null ? null
                : option.parse("queue " + queue + ": activation config property " + option.attribute(), text);
    }

    private String option(SubscriptionOption<?> option) {
        return options.get(option.name());
    }

    private void option(SubscriptionOption<?> option, String value) {
        if (value == null || value.isBlank()) {
            options.remove(option.name());
        } else {
            options.put(option.name(), value.trim());
        }
    }

    @Override
    public ResourceAdapter getResourceAdapter() {
        return adapter;
    }

    @Override
    public void setResourceAdapter(ResourceAdapter ra) throws ResourceException {
        this.adapter = ra;
    }

    public String getQueue() {
        return queue;
    }

    public void setQueue(String queue) {
        this.queue = queue == null ? null : queue.trim();
    }

    public String getTable() {
        return table;
    }

    /** The class name of the {@code @InboxTable} record, loaded with the bean's class loader. */
    public void setTable(String table) {
        this.table = table == null ? null : table.trim();
    }

    public String getDataSource() {
        return dataSource;
    }

    /** The JNDI name of the data source; the adapter's {@code DataSource} property where unset. */
    public void setDataSource(String dataSource) {
        this.dataSource = dataSource == null || dataSource.isBlank() ? null : dataSource.trim();
    }

    // One property per subscription option, named by its @Inbound attribute (checked by a test).

    public String getLease() {
        return option(SubscriptionOption.LEASE);
    }

    public void setLease(String value) {
        option(SubscriptionOption.LEASE, value);
    }

    public String getPollInterval() {
        return option(SubscriptionOption.POLL_INTERVAL);
    }

    public void setPollInterval(String value) {
        option(SubscriptionOption.POLL_INTERVAL, value);
    }

    public String getWorkers() {
        return option(SubscriptionOption.WORKERS);
    }

    public void setWorkers(String value) {
        option(SubscriptionOption.WORKERS, value);
    }

    public String getBatchSize() {
        return option(SubscriptionOption.BATCH_SIZE);
    }

    public void setBatchSize(String value) {
        option(SubscriptionOption.BATCH_SIZE, value);
    }

    public String getPrefetch() {
        return option(SubscriptionOption.PREFETCH);
    }

    public void setPrefetch(String value) {
        option(SubscriptionOption.PREFETCH, value);
    }

    public String getMaxAttempts() {
        return option(SubscriptionOption.MAX_ATTEMPTS);
    }

    public void setMaxAttempts(String value) {
        option(SubscriptionOption.MAX_ATTEMPTS, value);
    }

    public String getDeadLetter() {
        return option(SubscriptionOption.DEAD_LETTER);
    }

    public void setDeadLetter(String value) {
        option(SubscriptionOption.DEAD_LETTER, value);
    }

    public String getRetryBackoff() {
        return option(SubscriptionOption.RETRY_BACKOFF);
    }

    public void setRetryBackoff(String value) {
        option(SubscriptionOption.RETRY_BACKOFF, value);
    }

    public String getRetryBackoffMax() {
        return option(SubscriptionOption.RETRY_BACKOFF_MAX);
    }

    public void setRetryBackoffMax(String value) {
        option(SubscriptionOption.RETRY_BACKOFF_MAX, value);
    }

    public String getHandlerTimeout() {
        return option(SubscriptionOption.HANDLER_TIMEOUT);
    }

    public void setHandlerTimeout(String value) {
        option(SubscriptionOption.HANDLER_TIMEOUT, value);
    }

    public String getTransactional() {
        return option(SubscriptionOption.TRANSACTIONAL);
    }

    public void setTransactional(String value) {
        option(SubscriptionOption.TRANSACTIONAL, value);
    }

    public String getListenNotify() {
        return option(SubscriptionOption.LISTEN_NOTIFY);
    }

    public void setListenNotify(String value) {
        option(SubscriptionOption.LISTEN_NOTIFY, value);
    }

    public String getEnabled() {
        return option(SubscriptionOption.ENABLED);
    }

    public void setEnabled(String value) {
        option(SubscriptionOption.ENABLED, value);
    }

    @Override
    public String toString() {
        return "InboxActivationSpec[queue=" + queue + ", table=" + table + ", options=" + options + "]";
    }
}
