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
 * claim (0 without an attempt column), the payload, the headers (null without a headers column).
 *
 * @param style   one statement, or a select followed by a stamp of each row
 * @param claim   {@link ClaimStyle#RETURNING}: leases up to {@code :limit} due rows and returns them;
 *                {@link ClaimStyle#SELECT_THEN_STAMP}: selects and locks them
 * @param stamp   {@link ClaimStyle#SELECT_THEN_STAMP} only: writes {@code :expiry} and counts the attempt of row {@code :id}
 * @param extend  moves row {@code :id} from {@code :token} to {@code :expiry}
 * @param ack     deletes (or stamps processed) row {@code :id} while it holds {@code :token}
 * @param retry   makes row {@code :id} due at {@code :due} while it holds {@code :token}
 * @param drop    deletes row {@code :id} while it holds {@code :token}
 */
public record LeaseStatements(ClaimStyle style, String claim, String stamp, String extend, String ack, String retry,
        String drop) {

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
        return all;
    }
}
