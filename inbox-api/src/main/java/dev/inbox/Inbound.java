package dev.inbox;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the parameter of a CDI bean method that receives a queue's payloads, the way
 * {@code @Observes} marks an observer's.
 *
 * <pre>{@code
 * public Outcome thumbnail(@Inbound(queue = "thumbnails", table = MakeThumbnail.class, workers = 2) Image image) { ... }
 * }</pre>
 *
 * Each attribute after {@code table} sets the {@link SubscriptionOption} of the same name, and is
 * unset by default ({@code -1}, {@code ""}, or no value for a flag): an unset option takes
 * {@code inbox.<option>} from MicroProfile Config, else its default. {@code inbox.queue.<queue>.<option>}
 * overrides what the annotation sets.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface Inbound {
    /** The queue's name. */
    String queue();

    /** The {@link InboxTable} record describing the queue's table. */
    Class<?> table();

    /** {@link SubscriptionOption#LEASE}, such as {@code 30s} or {@code PT1M}. */
    String lease() default "";

    /** {@link SubscriptionOption#POLL_INTERVAL}, such as {@code 500ms}. */
    String pollInterval() default "";

    /** {@link SubscriptionOption#WORKERS}: deliveries running at once. */
    int workers() default -1;

    /** {@link SubscriptionOption#BATCH_SIZE}: the most rows one claim takes. */
    int batchSize() default -1;

    /** {@link SubscriptionOption#PREFETCH}: claimed rows that may wait beside those in work. */
    int prefetch() default -1;

    /** {@link SubscriptionOption#MAX_ATTEMPTS}: attempts before a row moves to {@link #deadLetter()}. */
    int maxAttempts() default -1;

    /** {@link SubscriptionOption#DEAD_LETTER}: the dead-letter table. */
    String deadLetter() default "";

    /** {@link SubscriptionOption#RETRY_BACKOFF}: the wait after a failed attempt, such as {@code 10s}. */
    String retryBackoff() default "";

    /** {@link SubscriptionOption#RETRY_BACKOFF_MAX}: the longest wait of the back-off. */
    String retryBackoffMax() default "";

    /** {@link SubscriptionOption#HANDLER_TIMEOUT}: how long a handler may run, such as {@code 5m}. */
    String handlerTimeout() default "";

    /** {@link SubscriptionOption#TRANSACTIONAL}: {@code transactional = true} runs each delivery in one transaction with its settlement. */
    boolean[] transactional() default {};

    /** {@link SubscriptionOption#LISTEN_NOTIFY}: {@code listenNotify = true} wakes on PostgreSQL NOTIFY. */
    boolean[] listenNotify() default {};

    /** {@link SubscriptionOption#ENABLED}: {@code enabled = false} deploys the handler without claiming. */
    boolean[] enabled() default {};
}
