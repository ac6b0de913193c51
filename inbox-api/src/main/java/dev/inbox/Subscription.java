package dev.inbox;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A handler bound to a queue, with its options. Immutable; each option method returns a copy.
 *
 * <pre>{@code
 * Subscription<Image> thumbnails = Subscription.of("thumbnails", MakeThumbnail.class, Image.class,
 *         (image, delivery) -> resizer.resize(image) ? Outcome.ack() : Outcome.retry())
 *     .workers(4);
 * }</pre>
 *
 * @param <T> the type the payload is decoded into
 */
public final class Subscription<T> {
    private static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9_.\\-]{1,128}");

    private final String queue;
    private final InboxSpec table;
    private final Type payloadType;
    private final Handler<T> handler;
    private final BatchHandler<T> batchHandler;
    private final Map<SubscriptionOption<?>, Object> options;

    private Subscription(String queue, InboxSpec table, Type payloadType, Handler<T> handler,
            BatchHandler<T> batchHandler, Map<SubscriptionOption<?>, Object> options) {
        this.queue = queue;
        this.table = table;
        this.payloadType = payloadType;
        this.handler = handler;
        this.batchHandler = batchHandler;
        this.options = options;
    }

    /** A subscription to {@code queue} whose payload type is generic, such as {@code List<Image>}. */
    public static <T> Subscription<T> of(String queue, InboxSpec table, Type payloadType, Handler<T> handler) {
        return new Subscription<>(checkQueue(queue), Objects.requireNonNull(table, "table"),
                Objects.requireNonNull(payloadType, "payload type"), Objects.requireNonNull(handler, "handler"),
                null, Map.of());
    }

    /**
     * A subscription whose handler takes the payloads of each claim together, up to its batch
     * size, returning one outcome per payload.
     */
    public static <T> Subscription<T> ofBatch(String queue, InboxSpec table, Class<T> payloadType,
            BatchHandler<T> handler) {
        return new Subscription<>(checkQueue(queue), Objects.requireNonNull(table, "table"),
                Objects.requireNonNull(payloadType, "payload type"), null,
                Objects.requireNonNull(handler, "batch handler"), Map.of());
    }

    /** A subscription to {@code queue}, stored in the table {@code table} describes. */
    public static <T> Subscription<T> of(String queue, InboxSpec table, Class<T> payloadType, Handler<T> handler) {
        return of(queue, table, (Type) payloadType, handler);
    }

    /** A subscription to {@code queue}, stored in the table an {@link InboxTable} record describes. */
    public static <T> Subscription<T> of(String queue, Class<?> tableRecord, Class<T> payloadType, Handler<T> handler) {
        return of(queue, InboxSpec.of(tableRecord), payloadType, handler);
    }

    /**
     * Checks a queue name: 1 to 128 letters, digits, {@code _ . -}.
     *
     * @throws InboxException {@code DECLARATION}
     */
    public static String checkQueue(String queue) {
        if (queue == null || !QUEUE.matcher(queue).matches()) {
            throw new InboxException(InboxException.Kind.DECLARATION, "the queue name '" + queue
                    + "' is not valid: use 1 to 128 letters, digits, '_', '.' or '-'");
        }
        return queue;
    }

    /** The same subscription with {@code option} set, after checking the value. */
    public <V> Subscription<T> with(SubscriptionOption<V> option, V value) {
        option.check("queue " + queue, value);
        Map<SubscriptionOption<?>, Object> copy = new LinkedHashMap<>(options);
        copy.put(option, value);
        return new Subscription<>(queue, table, payloadType, handler, batchHandler, Collections.unmodifiableMap(copy));
    }

    public Subscription<T> lease(Duration lease) {
        return with(SubscriptionOption.LEASE, lease);
    }

    public Subscription<T> pollInterval(Duration interval) {
        return with(SubscriptionOption.POLL_INTERVAL, interval);
    }

    public Subscription<T> workers(int workers) {
        return with(SubscriptionOption.WORKERS, workers);
    }

    public Subscription<T> batchSize(int rows) {
        return with(SubscriptionOption.BATCH_SIZE, rows);
    }

    /** Claimed rows that may wait beside those in work (default: the workers, at most the batch size). */
    public Subscription<T> prefetch(int rows) {
        return with(SubscriptionOption.PREFETCH, rows);
    }

    public Subscription<T> maxAttempts(int attempts) {
        return with(SubscriptionOption.MAX_ATTEMPTS, attempts);
    }

    public Subscription<T> deadLetter(String table) {
        return with(SubscriptionOption.DEAD_LETTER, table);
    }

    /** The wait before a failed attempt's row is due again, doubled after each failure (default 1 s). */
    public Subscription<T> retryBackoff(Duration first) {
        return with(SubscriptionOption.RETRY_BACKOFF, first);
    }

    /** The longest wait of the retry back-off (default 5 min). */
    public Subscription<T> retryBackoffMax(Duration longest) {
        return with(SubscriptionOption.RETRY_BACKOFF_MAX, longest);
    }

    /**
     * How long one delivery's handler may run before its thread is interrupted and the attempt
     * counts as failed (default none).
     */
    public Subscription<T> handlerTimeout(Duration timeout) {
        return with(SubscriptionOption.HANDLER_TIMEOUT, timeout);
    }

    public Subscription<T> transactional(boolean on) {
        return with(SubscriptionOption.TRANSACTIONAL, on);
    }

    public Subscription<T> listenNotify(boolean on) {
        return with(SubscriptionOption.LISTEN_NOTIFY, on);
    }

    public Subscription<T> enabled(boolean on) {
        return with(SubscriptionOption.ENABLED, on);
    }

    /** The value set for {@code option} on this subscription; empty where none was set. */
    public <V> Optional<V> setting(SubscriptionOption<V> option) {
        return Optional.ofNullable(option.type().cast(options.get(option)));
    }

    /**
     * The value set for {@code option}, else its default; empty where neither exists. A broker
     * applies its own value of a {@linkplain SubscriptionOption#brokerWide() broker-wide} option
     * instead of the default.
     */
    public <V> Optional<V> find(SubscriptionOption<V> option) {
        return setting(option).or(() -> Optional.ofNullable(option.defaultValue()));
    }

    /** The value set for {@code option}, else its default. */
    public <V> V get(SubscriptionOption<V> option) {
        return find(option).orElseThrow(() -> new IllegalStateException(option + " has no default"));
    }

    public String queue() {
        return queue;
    }

    public InboxSpec table() {
        return table;
    }

    public Type payloadType() {
        return payloadType;
    }

    /** The handler of single deliveries; null for a batch subscription. */
    public Handler<T> handler() {
        return handler;
    }

    /** The batch handler; null for a subscription of single deliveries. */
    public BatchHandler<T> batchHandler() {
        return batchHandler;
    }

    /** True when the handler takes the payloads of a claim together. */
    public boolean isBatch() {
        return batchHandler != null;
    }

    @Override
    public String toString() {
        return "Subscription[queue=" + queue + ", table=" + table.table() + ", options=" + options + "]";
    }
}
