package dev.inbox.engine.form;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.engine.DeliveryTransactions;
import dev.inbox.engine.BrokerListener;
import dev.inbox.engine.InFlight;
import dev.inbox.engine.Sql;
import dev.inbox.spi.Dialect;
import java.time.Clock;
import java.util.function.Function;

/**
 * What a claim form of one subscription works with.
 *
 * @param deadLetter    the statement that copies a row into the dead-letter table, or null for none
 * @param ackAll        the form's acks of many rows in one statement ({@link Dialect#ackAll}), parsed
 *                      once for every claim's batch, or null
 * @param binaryPayload true when the payload column holds bytes, false for text
 * @param transactional true when each delivery runs in a transaction of its own with its ack
 * @param transactions  what begins those transactions
 */
public record FormContext(String queue, InboxSpec spec, Dialect dialect, ConnectionSource connections, Clock clock,
        BrokerListener listener, Reports reports, String deadLetter, Sql ackAll, boolean binaryPayload,
        ObjectMapper json, boolean transactional, DeliveryTransactions transactions) {

    /** Reads a claim's rows into deliveries of {@code claim}. */
    ClaimedRows rows() {
        return new ClaimedRows(queue, spec.table(), binaryPayload, json);
    }

    /** A batch of acks to be written together, by {@code ack} or by the one statement where the dialect has it. */
    AckBatch acks(Sql ack, Function<InFlight, InboxException> lost) {
        return new AckBatch(ack, ackAll, dialect, connections, lost);
    }

    /** The dead-letter statement as a prepared-once {@link Sql}, or null. */
    Sql deadLetterSql() {
        return deadLetter == null ? null : new Sql("dead letter", deadLetter);
    }
}
