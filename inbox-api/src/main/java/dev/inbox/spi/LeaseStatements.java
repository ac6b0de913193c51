package dev.inbox.spi;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lease form's statements for one table. Each names its parameters; the engine binds:
 * {@code :now} (the claim's one "now"), {@code :expiry} (now + lease, the new token), {@code :limit},
 * {@code :id}, {@code :token} (the expiry the delivery holds), {@code :due} (when a retried row is
 * due again, null for at once) and {@code :processed} (the ack's time).
 *
 * <p>A claim's result has four columns in this order: the id, the attempt as it stood before the
 * claim (0 without an attempt column), the payload, the headers (null without a headers column);
 * and a fifth, the priority, where the table has one. The engine hands a claim's rows to workers
 * in claim order (higher priority first, then id), whatever order the statement returns them in.
 *
 * @param style   one statement, or a select followed by a stamp of each row
 * @param claim   {@link ClaimStyle#RETURNING}: leases up to {@code :limit} due rows and returns them;
 *                {@link ClaimStyle#SELECT_THEN_STAMP}: selects and locks them
 * @param stamp   {@link ClaimStyle#SELECT_THEN_STAMP} only: writes {@code :expiry} and counts the attempt of row {@code :id}
 * @param extend  moves row {@code :id} from {@code :token} to {@code :expiry}
 * @param ack     deletes (or stamps processed) row {@code :id} while it holds {@code :token}
 * @param retry   makes row {@code :id} due at {@code :due} while it holds {@code :token}
 * @param drop    deletes row {@code :id} while it holds {@code :token}
 * @param release gives row {@code :id}, claimed but never handed to a handler, back while it holds
 *                {@code :token}: ends the lease and takes back the attempt the claim counted; null
 *                to give it back with {@code retry}, the attempt spent
 */
public record LeaseStatements(ClaimStyle style, String claim, String stamp, String extend, String ack, String retry,
        String drop, String release) {

    /** Statements without a release of unworked rows: those go back with {@code retry}. */
    public LeaseStatements(ClaimStyle style, String claim, String stamp, String extend, String ack, String retry,
            String drop) {
        this(style, claim, stamp, extend, ack, retry, drop, null);
    }

    /** These statements with {@code sql} as the release of unworked rows. */
    public LeaseStatements withRelease(String sql) {
        return new LeaseStatements(style, claim, stamp, extend, ack, retry, drop, sql);
    }

    /** How a lease claim runs. */
    public enum ClaimStyle {
        /** One statement leases and returns the rows ({@code UPDATE ... RETURNING}). */
        RETURNING,
        /** A {@code SELECT ... FOR UPDATE SKIP LOCKED}, then a stamp of each row, then commit. */
        SELECT_THEN_STAMP
    }

    /** Every statement by name, for preparing at open and for review. */
    public Map<String, String> all() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("lease claim", claim);
        if (stamp != null) {
            all.put("lease stamp", stamp);
        }
        all.put("lease extend", extend);
        all.put("ack", ack);
        all.put("retry", retry);
        all.put("drop", drop);
        if (release != null) {
            all.put("release", release);
        }
        return all;
    }
}
