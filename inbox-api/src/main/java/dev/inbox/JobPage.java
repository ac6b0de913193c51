package dev.inbox;

import java.util.List;

/**
 * One page of a {@link JobQuery}: its jobs in the order of their ids, and the id the next page
 * starts after, or null where this page is the last.
 */
public record JobPage(JobQuery query, List<QueuedJob> jobs, Object next) {

    public JobPage {
        jobs = List.copyOf(jobs);
    }

    /** Whether more jobs follow this page. */
    public boolean hasNext() {
        return next != null;
    }

    /** The query of the next page. */
    public JobQuery nextQuery() {
        if (next == null) {
            throw new IllegalStateException("this page is the last: no page follows it");
        }
        return query.after(next);
    }
}
