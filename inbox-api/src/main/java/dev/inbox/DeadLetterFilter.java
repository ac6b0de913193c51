package dev.inbox;

import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * Which dead letters of a queue a bulk retry or delete takes: the letters of some ids, or every
 * letter whose error (or last error) holds some text and that failed before some time.
 *
 * <pre>{@code
 * admin.retryDeadLetters("refunds", DeadLetterFilter.ALL.errorContaining("Connection refused"));
 * admin.deleteDeadLetters("refunds", DeadLetterFilter.ids(List.of(17L, 18L)));
 * }</pre>
 *
 * @param ids            the letters' ids, or null for every letter the other conditions take
 * @param errorContains  text the letter's error or last error holds (case as the database
 *                       compares), or null for any
 * @param failedBefore   only letters that failed before this time, or null for any
 */
public record DeadLetterFilter(List<Object> ids, String errorContains, Instant failedBefore) {
    /** Every dead letter of the queue. */
    public static final DeadLetterFilter ALL = new DeadLetterFilter(null, null, null);

    public DeadLetterFilter {
        ids = ids == null ? null : List.copyOf(ids);
        if (errorContains != null && errorContains.isEmpty()) {
            errorContains = null;
        }
    }

    /** The letters of {@code ids}; an id no letter has any more is passed over. */
    public static DeadLetterFilter ids(Collection<?> ids) {
        return new DeadLetterFilter(List.copyOf(ids), null, null);
    }

    /** This filter, only for letters whose error or last error holds {@code text}. */
    public DeadLetterFilter errorContaining(String text) {
        return new DeadLetterFilter(ids, text, failedBefore);
    }

    /** This filter, only for letters that failed before {@code time}. */
    public DeadLetterFilter failedBefore(Instant time) {
        return new DeadLetterFilter(ids, errorContains, time);
    }
}
