package dev.inbox;

import java.util.Objects;

/**
 * Which of a queue's unfinished jobs {@link InboxAdmin#jobs} lists: those in one {@link JobState},
 * optionally only those whose payload's text holds {@code payloadContains}, in the order of their
 * ids, one page of at most {@code limit} after the id {@code after} (null for the first page).
 *
 * <pre>{@code
 * JobPage page = admin.jobs("refunds", JobQuery.of(JobState.FAILING).containing("order-17"));
 * while (page.hasNext()) {
 *     page = admin.jobs("refunds", page.nextQuery());
 * }
 * }</pre>
 *
 * @param state           the jobs to list
 * @param payloadContains text the payload must hold, as the database stores it (case as it compares:
 *                        exact on PostgreSQL and SQLite and for binary payload columns), or null for any
 * @param after           the id after which the page starts ({@link JobPage#next()}), or null
 * @param limit           the most jobs in the page, 1 to {@link #MOST}
 */
public record JobQuery(JobState state, String payloadContains, Object after, int limit) {
    /** The jobs in a page unless a query says otherwise. */
    public static final int DEFAULT_LIMIT = 50;
    /** The most jobs one page holds. */
    public static final int MOST = 1000;

    public JobQuery {
        Objects.requireNonNull(state, "state");
        if (limit < 1 || limit > MOST) {
            throw new IllegalArgumentException("limit = " + limit + ": a page holds 1 to " + MOST + " jobs");
        }
        if (payloadContains != null && payloadContains.isEmpty()) {
            payloadContains = null;
        }
    }

    /** The first page of the jobs in {@code state}, {@link #DEFAULT_LIMIT} at most. */
    public static JobQuery of(JobState state) {
        return new JobQuery(state, null, null, DEFAULT_LIMIT);
    }

    /** This query, only for jobs whose payload holds {@code text} (null or empty for any). */
    public JobQuery containing(String text) {
        return new JobQuery(state, text, after, limit);
    }

    /** This query, for the page after job {@code id}. */
    public JobQuery after(Object id) {
        return new JobQuery(state, payloadContains, id, limit);
    }

    /** This query, with pages of at most {@code jobs}. */
    public JobQuery limit(int jobs) {
        return new JobQuery(state, payloadContains, after, jobs);
    }
}
