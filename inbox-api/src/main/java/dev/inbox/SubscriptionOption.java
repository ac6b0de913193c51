package dev.inbox;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One subscription option, declared once: its name (the last part of the MicroProfile Config key
 * {@code inbox.queue.<queue>.<name>}), its type, its default, its check and its description.
 * The annotation attributes, the config lookup, validation and README's table all derive from
 * {@link #all()}.
 *
 * @param <T> the option's value type
 */
public final class SubscriptionOption<T> {
    private static final Duration MAX_LEASE = Duration.ofDays(1);
    private static final Duration MAX_POLL = Duration.ofHours(1);

    /** The lease of the lease form: whole seconds, at least one, rounded up. Default: the broker's (30 s). */
    public static final SubscriptionOption<Duration> LEASE = new SubscriptionOption<>("lease", Duration.class, null,
            Durations::parse, v -> between(v, Duration.ofMillis(1), MAX_LEASE),
            "How long a claimed row stays out of the queue if its process dies; extended each half lease while"
                    + " the handler runs. Whole seconds, rounded up. Default: the broker's lease (30s).");
    /** How often an idle subscription looks for due rows. Default: the broker's (1 s). */
    public static final SubscriptionOption<Duration> POLL_INTERVAL = new SubscriptionOption<>("poll-interval",
            Duration.class, null, Durations::parse, v -> between(v, Duration.ofMillis(10), MAX_POLL),
            "How often an idle subscription claims when nothing wakes it. Default: the broker's (1s).");
    /** How many deliveries run at once. */
    public static final SubscriptionOption<Integer> WORKERS = new SubscriptionOption<>("workers", Integer.class, 1,
            Integer::valueOf, v -> between(v, 1, 1024), "How many deliveries of this queue run at once.");
    /** The most rows one claim takes. */
    public static final SubscriptionOption<Integer> BATCH_SIZE = new SubscriptionOption<>("batch-size", Integer.class,
            16, Integer::valueOf, v -> between(v, 1, 10_000), "The most rows one claim statement takes.");
    /** Claimed rows that may wait in the subscription's buffer beside those in work. */
    public static final SubscriptionOption<Integer> PREFETCH = new SubscriptionOption<>("prefetch", Integer.class,
            null, Integer::valueOf, v -> between(v, 0, 10_000),
            "Claimed rows that may wait in the subscription's buffer beside those in work: more keeps claims"
                    + " large and workers fed, fewer holds fewer rows back from other processes behind slow"
                    + " handlers. Default: as many as the workers, at most batch-size.");
    /** The attempts after which a failing row moves to the dead-letter table. */
    public static final SubscriptionOption<Integer> MAX_ATTEMPTS = new SubscriptionOption<>("max-attempts",
            Integer.class, null, Integer::valueOf, v -> between(v, 1, 32_000),
            "After this many failed attempts a row moves to the dead-letter table; needs dead-letter.");
    /** The dead-letter table. */
    public static final SubscriptionOption<String> DEAD_LETTER = new SubscriptionOption<>("dead-letter", String.class,
            null, String::trim, Identifiers::checkTable,
            "The table that receives rows that failed their last attempt or were dropped; needs max-attempts.");
    /** Whether the handler's writes and the settlement commit in one transaction. */
    public static final SubscriptionOption<Boolean> TRANSACTIONAL = new SubscriptionOption<>("transactional",
            Boolean.class, false, SubscriptionOption::parseBoolean, v -> { },
            "Run each delivery in one transaction that commits the handler's writes with the ack.");
    /** Whether PostgreSQL NOTIFY wakes the subscription. Default: the broker's. */
    public static final SubscriptionOption<Boolean> LISTEN_NOTIFY = new SubscriptionOption<>("listen-notify",
            Boolean.class, null, SubscriptionOption::parseBoolean, v -> { },
            "On PostgreSQL, wake on NOTIFY from any process. Default: the broker's setting.");
    /** Whether the subscription runs at all. */
    public static final SubscriptionOption<Boolean> ENABLED = new SubscriptionOption<>("enabled", Boolean.class, true,
            SubscriptionOption::parseBoolean, v -> { }, "Set false to deploy the handler without claiming.");

    private static final List<SubscriptionOption<?>> ALL = List.of(LEASE, POLL_INTERVAL, WORKERS, BATCH_SIZE,
            PREFETCH, MAX_ATTEMPTS, DEAD_LETTER, TRANSACTIONAL, LISTEN_NOTIFY, ENABLED);

    private final String name;
    private final Class<T> type;
    private final T defaultValue;
    private final Function<String, T> parser;
    private final Consumer<T> check;
    private final String description;

    private SubscriptionOption(String name, Class<T> type, T defaultValue, Function<String, T> parser,
            Consumer<T> check, String description) {
        this.name = name;
        this.type = type;
        this.defaultValue = defaultValue;
        this.parser = parser;
        this.check = check;
        this.description = description;
    }

    /** Every option, in the order README lists them. */
    public static List<SubscriptionOption<?>> all() {
        return ALL;
    }

    public String name() {
        return name;
    }

    public Class<T> type() {
        return type;
    }

    /** The default, or null where the broker's setting applies or there is none. */
    public T defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }

    /**
     * Reads and checks a configured value.
     *
     * @param source where the text came from, for the message (a config key)
     * @throws InboxException {@code DECLARATION} naming the source and the value expected
     */
    public T parse(String source, String text) {
        T value;
        try {
            value = parser.apply(text);
        } catch (RuntimeException e) {
            throw new InboxException(InboxException.Kind.DECLARATION, source + " = '" + text + "' is not a valid "
                    + name + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()));
        }
        return check(source, value);
    }

    /**
     * Checks a value.
     *
     * @throws InboxException {@code DECLARATION} naming the source and the range
     */
    public T check(String source, T value) {
        if (value == null) {
            throw new InboxException(InboxException.Kind.DECLARATION, source + ": " + name + " cannot be null");
        }
        try {
            check.accept(value);
        } catch (IllegalArgumentException e) {
            throw new InboxException(InboxException.Kind.DECLARATION, source + ": " + name + " " + e.getMessage());
        } catch (InboxException e) {
            throw new InboxException(e.kind(), source + ": " + e.detail());
        }
        return value;
    }

    private static boolean parseBoolean(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("true") || t.equals("false")) {
            return Boolean.parseBoolean(t);
        }
        throw new IllegalArgumentException("write true or false");
    }

    private static <C extends Comparable<C>> void between(C value, C min, C max) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException("must be between " + min + " and " + max + ", not " + value);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
