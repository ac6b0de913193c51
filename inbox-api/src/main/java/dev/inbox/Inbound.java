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
 * public Outcome thumbnail(@Inbound(queue = "thumbnails", table = MakeThumbnail.class) Image image) { ... }
 * }</pre>
 *
 * Every option may be overridden by MicroProfile Config as {@code inbox.queue.<queue>.<option>}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface Inbound {
    /** The queue's name. */
    String queue();

    /** The {@link InboxTable} record describing the queue's table. */
    Class<?> table();

    /** The lease, such as {@code 30s} or {@code PT1M}; empty for the broker's. */
    String lease() default "";

    /** The poll interval; empty for the broker's. */
    String pollInterval() default "";

    /** Deliveries running at once. */
    int workers() default 1;

    /** The most rows one claim takes. */
    int batchSize() default 16;

    /** Attempts before a row moves to {@link #deadLetter()}; 0 for no cap. */
    int maxAttempts() default 0;

    /** The dead-letter table; empty for none. */
    String deadLetter() default "";

    /** Run each delivery in one transaction with its settlement. */
    boolean transactional() default false;

    /** Whether the subscription claims at all. */
    boolean enabled() default true;
}
