package dev.inbox.cdi;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Publishes the method's return value into {@link #queue()} at each occurrence of {@link #cron()},
 * once per occurrence across every server of the application on one database (the schedule table
 * {@code inbox_schedule} holds each job's next due time). The method is public, returns the
 * queue's payload type, and takes nothing or the occurrence's due time ({@link java.time.Instant});
 * it runs on the server that publishes the occurrence, inside the publishing transaction, and
 * the queue's handler does the work, with its retries and dead letters.
 *
 * <pre>{@code
 * @Recurring(name = "nightly-report", cron = "0 0 2 * * *", zone = "Europe/Paris", queue = "reports")
 * public Report nightly(Instant due) { return new Report("nightly " + due); }
 * }</pre>
 *
 * MicroProfile Config overrides each job by name: {@code inbox.recurring.<name>.cron},
 * {@code .zone} and {@code .enabled}; a changed expression takes effect when the application next starts.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Recurring {
    /** The job's name, its key in the schedule table: the same on every server, and unique in the application. */
    String name();

    /** Six fields, seconds first ({@code second minute hour day-of-month month day-of-week}), as Spring writes them. */
    String cron();

    /** The zone of the expression's hours and days; UTC unless set. */
    String zone() default "UTC";

    /** The queue each occurrence is published into. */
    String queue();

    /**
     * The {@code @InboxTable} record of the queue's table, for a queue no handler method of this
     * application takes; left out, the table is the handler's.
     */
    Class<?> table() default void.class;
}
