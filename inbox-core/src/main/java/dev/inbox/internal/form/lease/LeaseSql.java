package dev.inbox.internal.form.lease;

import dev.inbox.internal.form.ForRows;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.RowsUpdate;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.LeaseStatements;
import java.util.Arrays;
import java.util.List;

/**
 * The lease form's statements for one subscription, parsed once as it opens.
 *
 * @param style             one claim statement, or a select and a stamp of each row
 * @param stamp             the stamp of a claim's rows (select-then-stamp style), or null
 * @param ackRows           the acks of a list of rows, or null
 * @param ackAll            the acks of many rows that return their ids, or null
 * @param claimCarryingAcks the claim, then the acks waiting, in one round trip; null where the
 *                          dialect writes none, the server does not prepare it, or deliveries ack in
 *                          their own transactions
 * @param deadLetter        the copy into the dead-letter table, or null
 */
record LeaseSql(LeaseStatements.ClaimStyle style, Sql claim, RowsUpdate stamp, Sql extend, Sql ack, ForRows ackRows,
        Sql ackAll, Sql claimCarryingAcks, Sql retry, Sql drop, Sql deadLetter, Sql release) {

    static LeaseSql of(FormContext context, LeaseStatements s) {
        Sql stamp = FormContext.sql("lease stamp", s.stamp());
        Sql ack = new Sql("ack", s.ack());
        return new LeaseSql(s.style(), new Sql("lease claim", s.claim()),
                stamp == null ? null : new RowsUpdate(stamp, context.rows(stamp, s.stampRows())),
                new Sql("lease extend", s.extend()), ack, context.rows(ack, s.ackRows()),
                FormContext.sql("ack all", s.ackAll()),
                context.transactional() ? null : context.optional("lease claim carrying acks", s.claimCarryingAcks()),
                new Sql("retry", s.retry()), new Sql("drop", s.drop()), context.deadLetterSql(),
                FormContext.sql("release", s.release()));
    }

    /** The statements prepared on the server as the subscription opens, so a missing column fails there. */
    List<Sql> prepared() {
        return Arrays.asList(claim, stamp == null ? null : stamp.perRow(), extend, ack, retry, drop, deadLetter,
                release);
    }
}
