package dev.inbox;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the record component that maps the column a publish stamps with its time (on the table's
 * clock): how long the oldest ready job has waited, for metrics and the console. Optional; without
 * it that age is reported only where rows carry a due time (a delay or a retry).
 * The column name is the component's name in snake case unless {@link #value()} names it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.FIELD})
public @interface PublishedAt {
    /** The column name; empty for the component's name in snake case. */
    String value() default "";
}
