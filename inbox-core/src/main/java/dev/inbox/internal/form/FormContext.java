package dev.inbox.internal.form;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.time.Clock;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What a claim form of one subscription works with.
 *
 * @param deadLetter    the statement that copies a row into the dead-letter table, or null for none
 * @param binaryPayload true when the payload column holds bytes, false for text
 * @param transactional true when each delivery runs in a transaction of its own with its ack
 * @param transactions  what begins those transactions
 * @param shape         the table as the dialect's statements see it
 * @param prepares      whether a statement the form may do without prepares on the database, asked
 *                      as the form is made (at open): a statement for a list of rows the server
 *                      refuses leaves the form with a statement per row
 */
public record FormContext(String queue, InboxSpec spec, Dialect dialect, ConnectionSource connections, Clock clock,
        BrokerListener listener, Reports reports, String deadLetter, boolean binaryPayload,
        ObjectMapper json, boolean transactional, DeliveryTransactions transactions, TableShape shape,
        Predicate<Sql> prepares) {

    /** Reads a claim's rows into deliveries of {@code claim}. */
    ClaimedRows rows() {
        return new ClaimedRows(queue, spec.table(), binaryPayload, json);
    }

    /**
     * A batch of acks to be written together: by {@code ackAll} where the dialect has it, else by
     * {@code ackRows} where there is one, else by {@code ack} a row at a time.
     *
     * @param ackAll  the form's acks of many rows that return their ids, made once, or null
     * @param ackRows the form's {@link #rows} of its ack, made once: statements are kept prepared by identity
     * @param inClaim true where the acks run inside a claim's open transaction, which a failure
     *                does not roll back
     */
    AckBatch acks(Sql ack, ForRows ackRows, Sql ackAll, Function<InFlight, InboxException> lost, boolean inClaim) {
        return new AckBatch(ack, ackAll, ackRows, !inClaim, dialect, connections, lost);
    }

    /**
     * {@code perRow} as one statement for a list of rows, {@code text} from the dialect; null where
     * there is none or the server does not prepare it.
     */
    ForRows rows(Sql perRow, String text) {
        Sql rows = perRow == null ? null : optional(perRow.name() + " of a list of rows", text);
        return rows == null ? null : new ForRows(rows, perRow.uses("token"));
    }

    /** The acks of many rows that return their ids, {@code text} from the dialect; null where there is none. */
    static Sql ackAll(String text) {
        return text == null ? null : new Sql("ack all", text);
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
