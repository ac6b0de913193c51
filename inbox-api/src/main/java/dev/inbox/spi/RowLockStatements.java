package dev.inbox.spi;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The row lock form's statements for one table. The claim's transaction stays open holding the
 * rows ({@code FOR UPDATE SKIP LOCKED}) while their handlers run, and they settle in it. Parameters
 * as in {@link LeaseStatements}; a claim's result has the same four columns.
 *
 * @param style  one statement, or a select followed by a stamp of each row
 * @param claim  locks and returns up to {@code :limit} due rows (and counts their attempt in the
 *               {@link LeaseStatements.ClaimStyle#RETURNING} style)
 * @param stamp  {@link LeaseStatements.ClaimStyle#SELECT_THEN_STAMP} only: counts the attempt of row
 *               {@code :id}; null where the table has no attempt column
 * @param ack    deletes (or stamps processed) row {@code :id}
 * @param retry  makes row {@code :id} due at {@code :due}; null where the table has no retry_after
 *               column (the row is due again when the transaction ends)
 * @param drop   deletes row {@code :id}
 * @param relock where a claim and its delivery share a transaction bound to the worker's thread
 *               (JTA) and that transaction rolled back: selects row {@code :id} locked
 *               ({@code FOR UPDATE SKIP LOCKED}) if no other transaction holds it and, where the table
 *               counts attempts, its attempt column still reads {@code :attempt}, the attempt that
 *               rolled back (no other claim worked it in between); null where the dialect cannot (such tables then refuse
 *               JTA deliveries)
 * @param count  counts the attempt of row {@code :id} once more; null where the table has no attempt
 *               column
 */
public record RowLockStatements(LeaseStatements.ClaimStyle style, String claim, String stamp, String ack, String retry,
        String drop, String relock, String count) {

    /** The statements of a dialect that cannot lock a row again after a rolled-back JTA delivery. */
    public RowLockStatements(LeaseStatements.ClaimStyle style, String claim, String stamp, String ack, String retry,
            String drop) {
        this(style, claim, stamp, ack, retry, drop, null, null);
    }

    /** Every statement by name, for preparing at open and for review. */
    public Map<String, String> all() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("row lock claim", claim);
        if (stamp != null) {
            all.put("row lock stamp", stamp);
        }
        all.put("ack", ack);
        if (retry != null) {
            all.put("retry", retry);
        }
        all.put("drop", drop);
        if (relock != null) {
            all.put("row lock relock", relock);
        }
        if (count != null) {
            all.put("row lock count", count);
        }
        return all;
    }
}
