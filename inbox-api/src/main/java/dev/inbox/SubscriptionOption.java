package dev.inbox;

import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One subscription option, declared once: its name, type, default, range and description. Every
 * other form of it derives from this declaration: the {@link Inbound} attribute (its name in
 * camel case, and the value that leaves it unset), the MicroProfile Config keys
 * {@code inbox.queue.<queue>.<name>} and {@code inbox.<name>}, the resource adapter's property
 * of a broker-wide option ({@code PollInterval}), the checks, and README's option table
 * ({@link #readmeTable()}, which a test compares with README).
 *
 * @param <T> the option's value type
 */
public final class SubscriptionOption<T> {
    private static final Duration MAX_LEASE = Duration.ofDays(1);
    private static final Duration MAX_POLL = Duration.ofHours(1);

    /** The lease of the lease form: whole seconds, at least one, rounded up. */
    public static final SubscriptionOption<Duration> LEASE = new SubscriptionOption<>("lease", Duration.class,
            Duration.ofSeconds(30), "30s", true, Durations::parse, v -> between(v, Duration.ofMillis(1), MAX_LEASE),
            "How long a claimed row stays out of the queue if its process dies; extended each half lease while"
                    + " the handler runs. Whole seconds, rounded up; 1 s to 1 day.");
    /** How often an idle subscription looks for due rows. */
    public static final SubscriptionOption<Duration> POLL_INTERVAL = new SubscriptionOption<>("poll-interval",
            Duration.class, Duration.ofSeconds(1), "1s", true, Durations::parse,
            v -> between(v, Duration.ofMillis(10), MAX_POLL),
            "How often an idle subscription claims when nothing wakes it; 10 ms to 1 hour. A publish from the"
                    + " same process wakes it at once.");
    /** How many deliveries run at once. */
    public static final SubscriptionOption<Integer> WORKERS = new SubscriptionOption<>("workers", Integer.class, 1,
            "1", false, Integer::valueOf, v -> between(v, 1, 1024),
            "How many deliveries of this queue run at once (1 to 1024).");
    /** The most rows one claim takes. */
    public static final SubscriptionOption<Integer> BATCH_SIZE = new SubscriptionOption<>("batch-size", Integer.class,
            16, "16", false, Integer::valueOf, v -> between(v, 1, 10_000),
            "The most rows one claim statement takes (1 to 10,000); a batch handler takes a whole claim on one"
                    + " worker.");
    /** Claimed rows that may wait in the subscription's buffer beside those in work. */
    public static final SubscriptionOption<Integer> PREFETCH = new SubscriptionOption<>("prefetch", Integer.class,
            null, "workers, at most `batch-size`", false, Integer::valueOf, v -> between(v, 0, 10_000),
            "Claimed rows that may wait in the subscription's buffer beside those in work (0 to 10,000). More"
                    + " keeps claims large and workers fed (a drain of a full table runs best with `prefetch` = 2 x"
                    + " `batch-size`); fewer holds fewer rows back from other processes behind slow handlers; 0"
                    + " claims only for idle workers. Not used where a claim takes one row (`batch-size` 1,"
                    + " transactional row lock) and `workers` is more than 1: each worker claims its own.");
    /** The attempts after which a failing row moves to the dead-letter table. */
    public static final SubscriptionOption<Integer> MAX_ATTEMPTS = new SubscriptionOption<>("max-attempts",
            Integer.class, null, "none", false, Integer::valueOf, v -> between(v, 1, 32_000),
            "After this many failed attempts a row moves to the dead-letter table (1 to 32,000); needs"
                    + " `dead-letter` and an attempt column.");
    /** The dead-letter table. */
    public static final SubscriptionOption<String> DEAD_LETTER = new SubscriptionOption<>("dead-letter", String.class,
            null, "none", false, String::trim, Identifiers::checkTable,
            "The table that receives rows that failed their last attempt, were dropped, or whose payload does"
                    + " not decode; needs `max-attempts`.");
    /** The wait before a failed attempt's row is due again, doubled after each further failure. */
    public static final SubscriptionOption<Duration> RETRY_BACKOFF = new SubscriptionOption<>("retry-backoff",
            Duration.class, Duration.ofSeconds(1), "1s", false, Durations::parse,
            v -> between(v, Duration.ZERO, MAX_POLL),
            "How long a row whose attempt failed (an exception, or `retry()` without a delay) waits before it is"
                    + " due again; doubled after each further failure up to `retry-backoff-max`, with up to a quarter"
                    + " taken off at random so failed rows do not come back together; 0 to 1 hour, 0 for none."
                    + " Needs a due time: the lease column, or a `retry_after` column in the other forms.");
    /** The longest wait of the retry back-off. */
    public static final SubscriptionOption<Duration> RETRY_BACKOFF_MAX = new SubscriptionOption<>(
            "retry-backoff-max", Duration.class, Duration.ofMinutes(5), "5m", false, Durations::parse,
            v -> between(v, Duration.ZERO, Duration.ofDays(1)),
            "The longest wait of the retry back-off (0 to 1 day).");
    /** How long one delivery's handler may run before it is interrupted and its attempt counts as failed. */
    public static final SubscriptionOption<Duration> HANDLER_TIMEOUT = new SubscriptionOption<>("handler-timeout",
            Duration.class, null, "none", false, Durations::parse,
            v -> between(v, Duration.ofMillis(10), Duration.ofDays(1)),
            "How long one delivery's handler (a batch handler's call) may run; past it the handler's thread is"
                    + " interrupted and the attempt fails like a thrown exception: its transaction rolls back, the"
                    + " row is retried after the back-off or dead-lettered after `max-attempts`. A handler that"
                    + " ignores the interrupt keeps its worker, and another takes the rows behind it; its row returns"
                    + " once its lease runs out (lease form) or at once (the lock forms, unless its transactional"
                    + " handler writes in the claim's transaction). 10 ms to 1 day, checked every tenth of it (at"
                    + " most each second).");
    /** Whether the handler's writes and the settlement commit in one transaction. */
    public static final SubscriptionOption<Boolean> TRANSACTIONAL = new SubscriptionOption<>("transactional",
            Boolean.class, false, "false", false, SubscriptionOption::parseBoolean, v -> { },
            "Run each delivery in one transaction that commits the handler's writes with the ack.");
    /** Whether PostgreSQL NOTIFY wakes the subscription. */
    public static final SubscriptionOption<Boolean> LISTEN_NOTIFY = new SubscriptionOption<>("listen-notify",
            Boolean.class, false, "false", true, SubscriptionOption::parseBoolean, v -> { },
            "On PostgreSQL, wake on `NOTIFY` from any process; see \"Waking\".");
    /** Whether the subscription runs at all. */
    public static final SubscriptionOption<Boolean> ENABLED = new SubscriptionOption<>("enabled", Boolean.class, true,
            "true", false, SubscriptionOption::parseBoolean, v -> { },
            "Set false to deploy a handler without claiming.");

    private static final List<SubscriptionOption<?>> ALL = List.of(LEASE, POLL_INTERVAL, WORKERS, BATCH_SIZE,
            PREFETCH, MAX_ATTEMPTS, DEAD_LETTER, RETRY_BACKOFF, RETRY_BACKOFF_MAX, HANDLER_TIMEOUT, TRANSACTIONAL,
            LISTEN_NOTIFY, ENABLED);

    private final String name;
    private final Class<T> type;
    private final T defaultValue;
    private final String defaultText;
    private final boolean brokerWide;
    private final Function<String, T> parser;
    private final Consumer<T> check;
    private final String description;

    private SubscriptionOption(String name, Class<T> type, T defaultValue, String defaultText, boolean brokerWide,
            Function<String, T> parser, Consumer<T> check, String description) {
        this.name = name;
        this.type = type;
        this.defaultValue = defaultValue;
        this.defaultText = defaultText;
        this.brokerWide = brokerWide;
        this.parser = parser;
        this.check = check;
        this.description = description;
    }

    /** Every option, in the order README lists them. */
    public static List<SubscriptionOption<?>> all() {
        return ALL;
    }

    /** The option called {@code name}, if there is one. */
    public static Optional<SubscriptionOption<?>> named(String name) {
        return ALL.stream().filter(o -> o.name.equals(name)).findFirst();
    }

    /** The name: the last part of its MicroProfile Config keys, such as {@code poll-interval}. */
    public String name() {
        return name;
    }

    public Class<T> type() {
        return type;
    }

    /**
     * The default, or null where there is none (no cap, no dead-letter table) or it derives from
     * other options (prefetch). For a broker-wide option, the broker's default.
     */
    public T defaultValue() {
        return defaultValue;
    }

    /** The default as the documentation states it ({@code 30s}, {@code none}, {@code workers, at most `batch-size`}). */
    public String defaultText() {
        return defaultText;
    }

    /**
     * True for an option that is also a broker setting: the broker's value (its builder, the
     * MicroProfile Config key {@code inbox.<name>}, the resource adapter's property) applies to
     * every subscription that sets none.
     */
    public boolean brokerWide() {
        return brokerWide;
    }

    public String description() {
        return description;
    }

    /** The {@link Inbound} attribute that sets this option: the name in camel case ({@code pollInterval}). */
    public String attribute() {
        StringBuilder camel = new StringBuilder();
        for (String part : name.split("-")) {
            camel.append(camel.length() == 0 ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return camel.toString();
    }

    /**
     * The value of the {@link Inbound} attribute that leaves this option unset: {@code -1} for a
     * number, {@code ""} for a duration or a name, and an empty array for a flag
     * ({@code boolean[]}, so that {@code transactional = false} is told from no value).
     */
    public Object unsetAttribute() {
        if (type == Integer.class) {
            return -1;
        }
        if (type == Boolean.class) {
            return new boolean[0];
        }
        return "";
    }

    /** The resource adapter's property of a broker-wide option: the name in Pascal case ({@code PollInterval}). */
    public String adapterProperty() {
        String camel = attribute();
        return Character.toUpperCase(camel.charAt(0)) + camel.substring(1);
    }

    /** The MicroProfile Config key of this option for one queue: {@code inbox.queue.<queue>.<name>}. */
    public String queueKey(String queue) {
        return "inbox.queue." + queue + "." + name;
    }

    /** The MicroProfile Config key of this option for every queue (and the broker): {@code inbox.<name>}. */
    public String globalKey() {
        return "inbox." + name;
    }

    /**
     * What {@code inbound} sets for this option; empty where the attribute holds its unset value.
     *
     * @throws InboxException {@code DECLARATION} naming the handler's queue and the attribute
     */
    public Optional<T> fromAnnotation(Inbound inbound) {
        String source = "@Inbound(queue = \"" + inbound.queue() + "\", " + attribute() + ")";
        Object value;
        try {
            value = Inbound.class.getMethod(attribute()).invoke(inbound);
        } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("@Inbound has no attribute " + attribute() + " for option " + name, e);
        }
        if (value instanceof boolean[] flags) {
            if (flags.length > 1) {
                throw new InboxException(InboxException.Kind.DECLARATION, source + " has " + flags.length
                        + " values: give one, true or false");
            }
            return flags.length == 0 ? Optional.empty() : Optional.of(check(source, type.cast(flags[0])));
        }
        if (value instanceof String text) {
            return text.isEmpty() ? Optional.empty() : Optional.of(parse(source, text));
        }
        if (value.equals(unsetAttribute())) {
            return Optional.empty();
        }
        return Optional.of(check(source, type.cast(value)));
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
                    + name + ": " + (e instanceof NumberFormatException ? "write a whole number"
                            : e.getMessage() == null ? e.toString() : e.getMessage()));
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

    /** README's table of the options, generated from their declarations. */
    public static String readmeTable() {
        StringBuilder table = new StringBuilder();
        table.append("| option | `@Inbound` | default | adapter property | meaning |\n");
        table.append("|---|---|---|---|---|\n");
        for (SubscriptionOption<?> option : ALL) {
            table.append("| `").append(option.name).append("` | `").append(option.attribute()).append("` | ")
                    .append(option.defaultText).append(" | ")
                    .append(option.brokerWide ? "`" + option.adapterProperty() + "`" : "")
                    .append(" | ").append(option.description).append(" |\n");
        }
        return table.toString();
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
