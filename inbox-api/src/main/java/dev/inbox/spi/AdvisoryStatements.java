package dev.inbox.spi;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The advisory lock form's statements for one table. A claim reads candidate rows, locks each
 * one's key on its session ({@code :key}, the text {@code <table>:<advisory_lock or id>}), then
 * reads the row again under the lock, since another session may have settled it meanwhile.
 *
 * @param candidates the id and lock key of up to {@code :limit} due rows, in claim order
 * @param lockCandidates locks and returns the id and key of up to {@code :limit} due rows on the
 *                   session, in claim order, passing over rows whose lock another session holds
 *                   ({@code :prefix} is {@code <table>:}, {@code :scan} how many rows it may read);
 *                   null when locks are kept in the process
 * @param take       row {@code :id} under its lock, if still due: the four columns of a claim's result
 * @param count      counts the attempt of row {@code :id}; null where the table has no attempt column
 * @param unlock     releases the session's lock on {@code :key}; null with in-process locks
 * @param unlockAll  releases every lock of the session, before it goes back to its pool; null with in-process locks
 * @param ack        deletes (or stamps processed) row {@code :id}
 * @param retry      makes row {@code :id} due at {@code :due}; null without a retry_after column
 * @param drop       deletes row {@code :id}
 */
public record AdvisoryStatements(String candidates, String lockCandidates, String take, String count, String unlock,
        String unlockAll, String ack, String retry, String drop) {

    /** Every statement by name, for preparing at open and for review. */
    public Map<String, String> all() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("advisory candidates", candidates);
        put(all, "advisory lock candidates", lockCandidates);
        all.put("advisory take", take);
        put(all, "advisory count", count);
        put(all, "advisory unlock", unlock);
        put(all, "advisory unlock all", unlockAll);
        all.put("ack", ack);
        put(all, "retry", retry);
        all.put("drop", drop);
        return all;
    }

    private static void put(Map<String, String> all, String name, String sql) {
        if (sql != null) {
            all.put(name, sql);
        }
    }
}
