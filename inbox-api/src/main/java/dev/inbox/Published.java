package dev.inbox;

/** What a publish of one job did. */
public enum Published {
    /** The job was inserted. */
    NEW,
    /**
     * Nothing was inserted: a row of the table already holds the job's unique key (or its id). The
     * caller's transaction goes on unharmed.
     */
    DUPLICATE;

    /** True for {@link #NEW}. */
    public boolean isNew() {
        return this == NEW;
    }
}
