package dev.inbox.internal.form.advisory;

import dev.inbox.internal.form.ForRows;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.RowsUpdate;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.AdvisoryStatements;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The advisory lock form's statements for one subscription, parsed once as it opens (the locks'
 * own are {@link AdvisoryLocks}').
 *
 * @param takeRows the take of a list of candidates in one query, or null
 * @param count    the attempts counted of a claim's rows, or null without an attempt column
 * @param ackAll   the acks of many rows that return their ids, or null
 */
record AdvisorySql(Sql take, ForRows takeRows, RowsUpdate count, Sql ack, ForRows ackRows, Sql ackAll, Sql retry,
        Sql drop, Sql deadLetter) {

    static AdvisorySql of(FormContext context, AdvisoryStatements s) {
        Sql take = new Sql("advisory take", s.take());
        Sql count = FormContext.sql("advisory count", s.count());
        Sql ack = new Sql("ack", s.ack());
        return new AdvisorySql(take, context.rows(take, s.takeRows()),
                count == null ? null : new RowsUpdate(count, context.rows(count, s.countRows())), ack,
                context.rows(ack, s.ackRows()), FormContext.sql("ack all", s.ackAll()), FormContext.sql("retry", s.retry()),
                new Sql("drop", s.drop()), context.deadLetterSql());
    }

    /** The statements prepared on the server as the subscription opens, with the locks' own. */
    List<Sql> prepared(AdvisoryLocks locks) {
        List<Sql> all = new ArrayList<>(locks.statements());
        all.addAll(Arrays.asList(take, count == null ? null : count.perRow(), ack, retry, drop, deadLetter));
        return all;
    }
}
