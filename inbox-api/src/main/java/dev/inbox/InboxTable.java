package dev.inbox;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a record as the description of one queue table.
 *
 * <pre>{@code
 * @InboxTable("thumbnail_jobs")
 * public record MakeThumbnail(
 *         @Id(generated = true) long id,
 *         @Attempt(generated = true) short attempt,
 *         @LockedUntil Instant lockedUntil,
 *         @Payload byte[] payload) {}
 * }</pre>
 *
 * {@link InboxSpec#of(Class)} reads it into the same description the manual builder yields.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface InboxTable {
    /** The table name, optionally qualified by a schema ({@code app.thumbnail_jobs}). */
    String value();

    /** The isolation level of claims and transactional deliveries on a server database. */
    Isolation isolation() default Isolation.DEFAULT;

    /** How a transactional delivery opens its transaction on SQLite. */
    SqliteMode mode() default SqliteMode.DEFAULT;

    /** Whose clock judges due rows; a lease table must use the host's. */
    QueueClock clock() default QueueClock.HOST;
}
