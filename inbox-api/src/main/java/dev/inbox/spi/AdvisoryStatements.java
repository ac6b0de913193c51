package dev.inbox.spi;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The advisory lock form's statements for one table, each whole as the engine runs it. A claim
 * reads candidate rows, locks each one's key on its session ({@code :key}, the text
 * {@code <table>:<advisory_lock or id>}), then reads the row again under the lock, since another
 * session may have settled it meanwhile. The statements for many rows at once are optional.
 *
 * @param candidates     the id and lock key of up to {@code :limit} due rows, in claim order
 * @param lockCandidates locks and returns the id and key of up to {@code :limit} due rows on the
 *                       session, in claim order, passing over rows whose lock another session holds
 *                       ({@code :prefix} is {@code <table>:}, {@code :scan} how many rows it may read);
 *                       null when locks are kept in the process
 * @param take           row {@code :id} under its lock, if still due: the four columns of a claim's result
 * @param takeRows       {@code take} for the rows of {@code :rows}: those still due; or null
 * @param count          counts the attempt of row {@code :id}; null where the table has no attempt column
 * @param countRows      {@code count} for the rows of {@code :rows}, or null
 * @param unlock         releases the session's lock on {@code :key}; null with in-process locks
 * @param unlockAll      releases every lock of the session, before it goes back to its pool; null with
 *                       in-process locks
 * @param ack            deletes (or stamps processed) row {@code :id}
 * @param ackRows        {@code ack} for the rows of {@code :rows}; null where there is none or
 *                       {@code ackAll} serves
 * @param ackAll         acks the rows of {@code :ids} and returns the id of each row it acked; or null
 * @param retry          makes row {@code :id} due at {@code :due}; null without a retry_after column
 * @param drop           deletes row {@code :id}
 */
public record AdvisoryStatements(String candidates, String lockCandidates, String take, String takeRows,
        String count, String countRows, String unlock, String unlockAll, String ack, String ackRows, String ackAll,
        String retry, String drop) {

    /** The statements of one row each. */
    public AdvisoryStatements(String candidates, String lockCandidates, String take, String count, String unlock,
            String unlockAll, String ack, String retry, String drop) {
        this(candidates, lockCandidates, take, null, count, null, unlock, unlockAll, ack, null, null, retry, drop);
    }

    /** These statements with those of many rows at once (each may be null). */
    public AdvisoryStatements withRows(String takeOfRows, String countOfRows, String acksOfRows, String acksOfAll) {
        return new AdvisoryStatements(candidates, lockCandidates, take, takeOfRows, count, countOfRows, unlock,
                unlockAll, ack, acksOfRows, acksOfAll, retry, drop);
    }

    /** Every statement by name, for preparing at open and for review; those the database has not left out. */
    public Map<String, String> all() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("advisory candidates", candidates);
        all.put("advisory lock candidates", lockCandidates);
        all.put("advisory take", take);
        all.put("advisory take of a list of rows", takeRows);
        all.put("advisory count", count);
        all.put("advisory count of a list of rows", countRows);
        all.put("advisory unlock", unlock);
        all.put("advisory unlock all", unlockAll);
        all.put("ack", ack);
        all.put("acks of a list of rows", ackRows);
        all.put("ack all", ackAll);
        all.put("retry", retry);
        all.put("drop", drop);
        all.values().removeIf(java.util.Objects::isNull);
        return all;
    }
}
