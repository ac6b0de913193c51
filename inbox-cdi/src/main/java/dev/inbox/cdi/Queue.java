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
 * it commits.
 */
@Qualifier
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.TYPE})
public @interface Queue {
    /** The queue's name. */
    @Nonbinding
    String value();
}
