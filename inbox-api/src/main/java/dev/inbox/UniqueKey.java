package dev.inbox;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the record component that maps the column holding a job's unique key
 * ({@link PublishOptions#uniqueKey(String)}). The table needs a unique index on the column alone:
 * a publish whose key a row of the table already holds inserts nothing and answers
 * a {@link Published#isDuplicate() duplicate} naming that row. Rows published without a key leave it NULL, and NULLs never collide.
 * The column name is the component's name in snake case unless {@link #value()} names it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.FIELD})
public @interface UniqueKey {
    /** The column name; empty for the component's name in snake case. */
    String value() default "";
}
