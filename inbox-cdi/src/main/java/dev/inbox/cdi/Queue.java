package dev.inbox.cdi;

import jakarta.enterprise.util.Nonbinding;
import jakarta.inject.Qualifier;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the queue of an injected publisher: {@code @Inject @Queue("thumbnails") Publisher<Image> thumbnails}.
 * Inside a JTA transaction the publisher's insert joins it, and the queue's subscriptions wake once
 * it commits. A queue no handler method of the application takes (a message-driven bean's, another
 * application's) names its table: {@code @Queue(value = "ledger", table = LedgerJob.class)}.
 */
@Qualifier
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.TYPE})
public @interface Queue {
    /** The queue's name. */
    @Nonbinding
    String value();

    /**
     * The {@code @InboxTable} record of the queue's table, for a queue no handler method of this
     * application takes; left out, the table is the handler's.
     */
    @Nonbinding
    Class<?> table() default void.class;
}
