package dev.inbox.spi;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The row lock form's statements for one table, each whole as the engine runs it. The claim's
 * transaction stays open holding the rows ({@code FOR UPDATE SKIP LOCKED}) while their handlers
 * run, and they settle in it. Parameters as in {@link LeaseStatements}; a claim's result has the
 * same four columns. The statements for many rows at once and the chains are optional.
 *
 * @param style              one statement, or a select followed by a stamp of each row
 * @param claim              locks and returns up to {@code :limit} due rows (and counts their attempt
 *                           in the {@link LeaseStatements.ClaimStyle#RETURNING} style)
 * @param stamp              {@link LeaseStatements.ClaimStyle#SELECT_THEN_STAMP} only: counts the attempt
 *                           of row {@code :id}; null where the table has no attempt column
 * @param stampRows          {@code stamp} for the rows of {@code :rows}, or null
 * @param ack                deletes (or stamps processed) row {@code :id}
 * @param ackRows            {@code ack} for the rows of {@code :rows}; null where there is none or
 *                           {@code ackAll} serves
 * @param ackAll             acks the rows of {@code :ids} and returns the id of each row it acked; or null
 * @param acksAndCommit      {@code ackAll} and then the commit of the claim's transaction, sent together:
 *                           its results are the acks', then the commit's count; should the acks fail,
 *                           nothing commits. Null where the driver sends one statement at a time
 * @param acksCommitAndClaim {@code ackAll}, the commit, and the claim in a transaction begun after that
 *                           commit, which stays open: one round trip where a claim's settlement and the
 *                           next claim took two. Its results are the acks', the counts of the commit
 *                           and the begin, then the claim's. Should the acks or the commit fail, nothing
 *                           commits and the claim does not run; should the claim fail, the acks have
 *                           committed and what began for the claim is rolled back. Null where the driver
 *                           sends one statement at a time, or where the claim stamps each row
 * @param retry              makes row {@code :id} due at {@code :due} and writes {@code :lastError} where
 *                           the table keeps one; null where the table has neither a retry_after nor a
 *                           last error column (the row is due again when the transaction ends)
 * @param drop               deletes row {@code :id}
 * @param relock             where a claim and its delivery share a transaction bound to the worker's
 *                           thread (JTA) and that transaction rolled back: selects row {@code :id}
 *                           locked ({@code FOR UPDATE SKIP LOCKED}) if no other transaction holds it and,
 *                           where the table counts attempts, its attempt column still reads
 *                           {@code :attempt} (no other claim worked it in between); null where the
 *                           dialect cannot (such tables then refuse JTA deliveries)
 * @param count              counts the attempt of row {@code :id} once more; null where the table has
 *                           no attempt column
 */
public record RowLockStatements(LeaseStatements.ClaimStyle style, String claim, String stamp, String stampRows,
        String ack, String ackRows, String ackAll, String acksAndCommit, String acksCommitAndClaim, String retry,
        String drop, String relock, String count) {

    /** The statements of one row each, of a dialect that cannot lock a row again after a rolled-back JTA delivery. */
    public RowLockStatements(LeaseStatements.ClaimStyle style, String claim, String stamp, String ack, String retry,
            String drop) {
        this(style, claim, stamp, ack, retry, drop, null, null);
    }

    /** The statements of one row each. */
    public RowLockStatements(LeaseStatements.ClaimStyle style, String claim, String stamp, String ack, String retry,
            String drop, String relock, String count) {
        this(style, claim, stamp, null, ack, null, null, null, null, retry, drop, relock, count);
    }

    /** These statements with those of many rows at once and the chains (each may be null). */
    public RowLockStatements withRows(String stampOfRows, String acksOfRows, String acksOfAll, String acksCommitted,
            String acksCommittedThenClaim) {
        return new RowLockStatements(style, claim, stamp, stampOfRows, ack, acksOfRows, acksOfAll, acksCommitted,
                acksCommittedThenClaim, retry, drop, relock, count);
    }

    /** Every statement by name, for preparing at open and for review; those the database has not left out. */
    public Map<String, String> all() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("row lock claim", claim);
        all.put("row lock stamp", stamp);
        all.put("row lock stamp of a list of rows", stampRows);
        all.put("ack", ack);
        all.put("acks of a list of rows", ackRows);
        all.put("ack all", ackAll);
        all.put("acks and commit", acksAndCommit);
        all.put("acks, commit and the next claim", acksCommitAndClaim);
        all.put("retry", retry);
        all.put("drop", drop);
        all.put("row lock relock", relock);
        all.put("row lock count", count);
        all.values().removeIf(java.util.Objects::isNull);
        return all;
    }
}
