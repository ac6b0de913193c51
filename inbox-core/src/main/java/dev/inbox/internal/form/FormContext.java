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
import java.util.Collection;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What a claim form of one subscription opens with: its table, the database, where it reports its
 * settlements, and the work it is opened for.
 *
 * @param transactions  what begins the transactions of transactional deliveries
 * @param binaryPayload true when the payload column holds bytes, false for text
 * @param deadLetter    the statement that copies a row into the dead-letter table, or null for none
 * @param inWork        the subscription's deliveries claimed and not yet done, which its runner keeps
 *                      (the lease keeper extends them)
 * @param prepares      whether a statement the form may do without prepares on the database, asked
 *                      as the form opens: a statement for a list of rows the server refuses leaves
 *                      the form with a statement per row
 */
public record FormContext(String queue, TableShape shape, Dialect dialect, ConnectionSource connections,
        DeliveryTransactions transactions, Reports reports, BrokerListener listener, Clock clock, ObjectMapper json,
        boolean binaryPayload, String deadLetter, Workload workload, Collection<InFlight> inWork,
        Predicate<Sql> prepares) {

    /**
     * The work a subscription opens its form for.
     *
     * @param batchHandler  true where the handler takes a claim's rows in one call
     * @param transactional true when each delivery runs in a transaction of its own with its ack
     */
    public record Workload(int workers, int batchSize, boolean batchHandler, boolean transactional) {}

    public InboxSpec spec() {
        return shape.spec();
    }

    public boolean transactional() {
        return workload.transactional();
    }

    /** The table's name, for messages. */
    public String table() {
        return shape.spec().table();
    }

    /** Reads a claim's rows into deliveries of a claim. */
    public ClaimedRows rows() {
        return new ClaimedRows(queue, table(), binaryPayload, json);
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
    public AckBatch acks(Sql ack, ForRows ackRows, Sql ackAll, Function<InFlight, InboxException> lost,
            boolean inClaim) {
        return new AckBatch(ack, ackAll, ackRows, !inClaim, dialect, connections, lost);
    }

    /**
     * {@code perRow} as one statement for a list of rows, {@code text} from the dialect; null where
     * there is none or the server does not prepare it.
     */
    public ForRows rows(Sql perRow, String text) {
        Sql rows = perRow == null ? null : optional(perRow.name() + " of a list of rows", text);
        return rows == null ? null : new ForRows(rows, perRow.uses("token"));
    }

    /** A statement the form cannot do without, or null where the dialect wrote none. */
    public static Sql sql(String name, String text) {
        return text == null ? null : new Sql(name, text);
    }

    /**
     * A statement the form can do without, {@code text} from the dialect: null where the dialect
     * wrote none ({@code text} null) or the server does not prepare it.
     */
    public Sql optional(String name, String text) {
        Sql sql = sql(name, text);
        return sql != null && prepares.test(sql) ? sql : null;
    }

    /** The dead-letter statement, or null. */
    public Sql deadLetterSql() {
        return sql("dead letter", deadLetter);
    }
}
