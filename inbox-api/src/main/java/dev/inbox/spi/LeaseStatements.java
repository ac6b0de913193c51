package dev.inbox.spi;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lease form's statements for one table, each whole as the engine runs it. Each names its
 * parameters; the engine binds: {@code :now} (the claim's one "now"), {@code :expiry} (now + lease,
 * the new token), {@code :limit}, {@code :id}, {@code :token} (the expiry the delivery holds),
 * {@code :due} (when a retried row is due again, null for at once) and {@code :processed} (the
 * ack's time).
 *
 * <p>A claim's result has four columns in this order: the id, the attempt as it stood before the
 * claim (0 without an attempt column), the payload, the headers (null without a headers column);
 * and a fifth, the priority, where the table has one. The engine hands a claim's rows to workers
 * in claim order (higher priority first, then id), whatever order the statement returns them in.
 *
 * <p>The statements for many rows at once are optional (null where the database has none); the
 * engine then runs the statement of one row as a JDBC batch.
 *
 * @param style             one statement, or a select followed by a stamp of each row
 * @param claim             {@link ClaimStyle#RETURNING}: leases up to {@code :limit} due rows and
 *                          returns them; {@link ClaimStyle#SELECT_THEN_STAMP}: selects and locks them
 * @param stamp             {@link ClaimStyle#SELECT_THEN_STAMP} only: writes {@code :expiry} and counts
 *                          the attempt of row {@code :id}
 * @param stampRows         {@code stamp} for the rows of {@code :rows} ({@link Dialect#bindRows}), or null
 * @param extend            moves row {@code :id} from {@code :token} to {@code :expiry}
 * @param ack               deletes (or stamps processed) row {@code :id} while it holds {@code :token}
 * @param ackRows           {@code ack} for the rows of {@code :rows} with their tokens, returning the
 *                          count it changed; null where there is none or {@code ackAll} serves
 * @param ackAll            acks the rows of {@code :ids} holding {@code :tokens} (each token
 *                          {@link Dialect#stored}, as ISO-8601 text, in the same order) and returns the
 *                          id of each row it acked: an ack whose row it does not return was lost; or null
 * @param claimCarryingAcks the claim, committed, then {@code ackAll} in a transaction of its own, sent
 *                          together in one round trip on an autocommit connection: a claim carries the
 *                          acks that wait for it. Should the claim fail the acks do not run; should the
 *                          acks fail the claim has committed. Null where the driver sends one statement
 *                          at a time
 * @param retry             makes row {@code :id} due at {@code :due} while it holds {@code :token}, and
 *                          writes {@code :lastError} where the table keeps one
 * @param drop              deletes row {@code :id} while it holds {@code :token}
 * @param release           gives row {@code :id}, claimed but never handed to a handler, back while it
 *                          holds {@code :token}: ends the lease and takes back the attempt the claim
 *                          counted; null to give it back with {@code retry}, the attempt spent
 */
public record LeaseStatements(ClaimStyle style, String claim, String stamp, String stampRows, String extend,
        String ack, String ackRows, String ackAll, String claimCarryingAcks, String retry, String drop,
        String release) {

    /** The statements of one row each, without a release of unworked rows (those go back with {@code retry}). */
    public LeaseStatements(ClaimStyle style, String claim, String stamp, String extend, String ack, String retry,
            String drop) {
        this(style, claim, stamp, null, extend, ack, null, null, null, retry, drop, null);
    }

    /** These statements with {@code sql} as the release of unworked rows. */
    public LeaseStatements withRelease(String sql) {
        return new LeaseStatements(style, claim, stamp, stampRows, extend, ack, ackRows, ackAll, claimCarryingAcks,
                retry, drop, sql);
    }

    /** These statements with those of many rows at once (each may be null). */
    public LeaseStatements withRows(String stampOfRows, String acksOfRows, String acksOfAll, String claimWithAcks) {
        return new LeaseStatements(style, claim, stamp, stampOfRows, extend, ack, acksOfRows, acksOfAll,
                claimWithAcks, retry, drop, release);
    }

    /** How a lease claim runs. */
    public enum ClaimStyle {
        /** One statement leases and returns the rows ({@code UPDATE ... RETURNING}). */
        RETURNING,
        /** A {@code SELECT ... FOR UPDATE SKIP LOCKED}, then a stamp of each row, then commit. */
        SELECT_THEN_STAMP
    }

    /** Every statement by name, for preparing at open and for review; those the database has not left out. */
    public Map<String, String> all() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("lease claim", claim);
        all.put("lease stamp", stamp);
        all.put("lease stamp of a list of rows", stampRows);
        all.put("lease extend", extend);
        all.put("ack", ack);
        all.put("acks of a list of rows", ackRows);
        all.put("ack all", ackAll);
        all.put("lease claim carrying acks", claimCarryingAcks);
        all.put("retry", retry);
        all.put("drop", drop);
        all.put("release", release);
        all.values().removeIf(java.util.Objects::isNull);
        return all;
    }
}
