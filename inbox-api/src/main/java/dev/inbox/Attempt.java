package dev.inbox;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the record component that maps the column holding the attempt counter, counted at each claim.
 * The column name is the component's name in snake case unless {@link #value()} names it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.FIELD})
public @interface Attempt {
    /** The column name; empty for the component's name in snake case. */
    String value() default "";

    /** True when the database fills the column on insert (identity, sequence or default). */
    boolean generated() default false;
}
