package dev.inbox.engine.form;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.engine.DeliveryTransactions;
import dev.inbox.engine.BrokerListener;
import dev.inbox.engine.InFlight;
import dev.inbox.engine.Sql;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.time.Clock;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What a claim form of one subscription works with.
 *
 * @param deadLetter    the statement that copies a row into the dead-letter table, or null for none
 * @param ackAll        the form's acks of many rows in one statement ({@link Dialect#ackAll}), parsed
 *                      once for every claim's batch, or null
 * @param binaryPayload true when the payload column holds bytes, false for text
 * @param transactional true when each delivery runs in a transaction of its own with its ack
 * @param transactions  what begins those transactions
 * @param shape         the table as the dialect's statements see it
 * @param prepares      whether a statement the form may do without prepares on the database, asked
 *                      as the form is made (at open): a statement for a list of rows the server
 *                      refuses leaves the form with a statement per row
 */
public record FormContext(String queue, InboxSpec spec, Dialect dialect, ConnectionSource connections, Clock clock,
        BrokerListener listener, Reports reports, String deadLetter, Sql ackAll, boolean binaryPayload,
        ObjectMapper json, boolean transactional, DeliveryTransactions transactions, TableShape shape,
        Predicate<Sql> prepares) {

    /** Reads a claim's rows into deliveries of {@code claim}. */
    ClaimedRows rows() {
        return new ClaimedRows(queue, spec.table(), binaryPayload, json);
    }

    /**
     * A batch of acks to be written together: by the one statement where the dialect has it, else
     * by {@code ackRows} where there is one, else by {@code ack} a row at a time.
     *
     * @param ackRows the form's {@link #ackRows}, made once: statements are kept prepared by identity
     * @param inClaim true where the acks run inside a claim's open transaction, which a failure
     *                does not roll back
     */
    AckBatch acks(Sql ack, ForRows ackRows, Function<InFlight, InboxException> lost, boolean inClaim) {
        return new AckBatch(ack, ackAll, ackRows, !inClaim, dialect, connections, lost);
    }

    /** The acks of a list of rows in one statement, where there is no {@link #ackAll} and the dialect writes one. */
    ForRows ackRows(Sql ack) {
        return ackAll == null ? forRows(ack) : null;
    }

    /** {@code perRow} as one statement for a list of rows ({@link Dialect#forRows}); null where there is none. */
    ForRows forRows(Sql perRow) {
        Sql rows = perRow == null ? null
                : optional(perRow.name() + " of a list of rows", dialect.forRows(shape, perRow.text()));
        return rows == null ? null : new ForRows(rows, perRow.uses("token"));
    }

    /**
     * A statement the form can do without, {@code text} from the dialect: null where the dialect
     * wrote none ({@code text} null) or the server does not prepare it.
     */
    Sql optional(String name, String text) {
        if (text == null) {
            return null;
        }
        Sql sql = new Sql(name, text);
        return prepares.test(sql) ? sql : null;
    }

    /** The dead-letter statement as a prepared-once {@link Sql}, or null. */
    Sql deadLetterSql() {
        return deadLetter == null ? null : new Sql("dead letter", deadLetter);
    }
}
