package dev.inbox;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the record component that maps the column holding the FIFO group: one row per group in work at a time, in id order.
 * The column name is the component's name in snake case unless {@link #value()} names it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.FIELD})
public @interface Group {
    /** The column name; empty for the component's name in snake case. */
    String value() default "";
}
