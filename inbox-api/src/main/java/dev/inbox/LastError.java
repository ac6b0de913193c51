package dev.inbox;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the record component that maps the column holding why the job's newest attempt failed: the
 * exception's class, message and first stack frames, or the reason the handler gave
 * {@link Outcome#retry(java.time.Duration, String)}, at most 2,000 characters (fewer where the column is
 * declared shorter). A dead-letter table keeps it in a column of the same name. The column name is
 * the component's name in snake case unless {@link #value()} names it.
 *
 * <pre>{@code
 * @LastError String lastError    // last_error TEXT, NULL until an attempt fails
 * }</pre>
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.FIELD})
public @interface LastError {
    /** The column name; empty for the component's name in snake case. */
    String value() default "";
}
