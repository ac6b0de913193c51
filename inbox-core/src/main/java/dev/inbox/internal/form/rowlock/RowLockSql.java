package dev.inbox.internal.form.rowlock;

import dev.inbox.internal.form.ForRows;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.RowsUpdate;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.RowLockStatements;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The row lock form's statements for one subscription, parsed once as it opens.
 *
 * @param stamp              the attempts counted of a claim's rows (select-then-stamp style), or null
 * @param ackAll             the acks of many rows that return their ids, or null
 * @param acksAndCommit      the acks and the claim's commit in one round trip, or null
 * @param acksCommitAndClaim the acks, the commit and the next claim in one round trip; null where
 *                           the dialect writes none, the server does not prepare it, or the claim must
 *                           end in the task that made it
 */
record RowLockSql(Sql claim, RowsUpdate stamp, Sql ack, ForRows ackRows, Sql ackAll, Sql acksAndCommit,
        Sql acksCommitAndClaim, Sql retry, Sql drop, Sql deadLetter, Sql relock, Sql count) {

    static RowLockSql of(FormContext context, RowLockStatements s) {
        Sql stamp = FormContext.sql("row lock stamp", s.stamp());
        Sql ack = new Sql("ack", s.ack());
        Sql acksAndCommit = context.transactional() ? null : context.optional("acks and commit", s.acksAndCommit());
        // Where the server binds connections to the task that took them, no claim waits past it.
        Sql acksCommitAndClaim = acksAndCommit == null || context.transactions().boundToThread() ? null
                : context.optional("acks, commit and the next claim", s.acksCommitAndClaim());
        return new RowLockSql(new Sql("row lock claim", s.claim()),
                stamp == null ? null : new RowsUpdate(stamp, context.rows(stamp, s.stampRows())), ack,
                context.rows(ack, s.ackRows()), FormContext.sql("ack all", s.ackAll()), acksAndCommit,
                acksCommitAndClaim, FormContext.sql("retry", s.retry()), new Sql("drop", s.drop()),
                context.deadLetterSql(), FormContext.sql("row lock relock", s.relock()),
                FormContext.sql("row lock count", s.count()));
    }

    /**
     * The statements prepared on the server as the subscription opens; with {@code inDelivery},
     * those a rolled-back JTA delivery settles apart with too.
     */
    List<Sql> prepared(boolean inDelivery) {
        List<Sql> all = new ArrayList<>(Arrays.asList(claim, ack, drop, stamp == null ? null : stamp.perRow(), retry,
                deadLetter));
        if (inDelivery) {
            all.addAll(Arrays.asList(relock, count));
        }
        return all;
    }
}
