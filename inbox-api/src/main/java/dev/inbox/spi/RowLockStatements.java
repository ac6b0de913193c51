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
 */
public record RowLockStatements(LeaseStatements.ClaimStyle style, String claim, String stamp, String ack, String retry,
        String drop) {

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
        return all;
    }
}
