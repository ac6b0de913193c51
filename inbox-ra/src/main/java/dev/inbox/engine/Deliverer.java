package dev.inbox.engine;

import com.fasterxml.jackson.databind.ObjectReader;
import dev.inbox.BatchHandler;
import dev.inbox.Handler;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.engine.form.ConnectionSource;
import dev.inbox.engine.form.Form;
import dev.inbox.spi.Dialect;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Works one delivery: decodes its payload, calls the handler, turns what happened into an outcome
 * (a thrown exception is a retry; the last failed attempt or a drop goes to the dead-letter table
 * where one is declared) and settles it. In a transactional subscription the handler runs inside
 * the delivery's transaction, which an ack commits together with the settlement.
 */
final class Deliverer<T> {
    private static final System.Logger LOG = System.getLogger(Deliverer.class.getName());

    private final InboxBroker broker;
    private final String queue;
    private final InboxSpec spec;
    private final Form form;
    private final Handler<T> handler;
    private final BatchHandler<T> batchHandler;
    private final ObjectReader reader;
    private final RunnerSettings settings;
    private final Dialect dialect;
    private final Connections connections;
    private final BrokerListener listener;
    private final FailureLog settlementFailures;
    /** Writes acks together where the form allows and no delivery transaction carries them; else null. */
    private final AckBatcher acks;

    /** Exactly one of {@code handler} and {@code batchHandler} is given. */
    Deliverer(InboxBroker broker, String queue, InboxSpec spec, Form form, Handler<T> handler,
            BatchHandler<T> batchHandler, ObjectReader reader, RunnerSettings settings) {
        this.broker = broker;
        this.queue = queue;
        this.spec = spec;
        this.form = form;
        this.handler = handler;
        this.batchHandler = batchHandler;
        this.reader = reader;
        this.settings = settings;
        this.dialect = broker.dialect();
        this.connections = broker.connections();
        this.listener = broker.listener();
        this.settlementFailures = new FailureLog(LOG, "queue " + queue + ": settling rows of table " + spec.table(),
                "each row not settled returns when its claim ends, and further failures are logged at DEBUG until"
                        + " a settlement succeeds");
        this.acks = form.acksTogether() && !settings.transactional() ? new AckBatcher(form, connections,
                broker.clock(), new AckReports(), 2 * (settings.workers() + settings.batchSize())) : null;
    }

    /** The writer of acks, for the runner to start and, once its workers are done, close; null for none. */
    AckBatcher acks() {
        return acks;
    }

    /** Works the deliveries of one unit (one delivery, or a batch) to their settlements. */
    void deliver(List<InFlight> unit, BooleanSupplier stopping) {
        // The application's context (class loader, naming, CDI, transactions) for the whole delivery.
        broker.handlerContext().execute(() -> {
            if (batchHandler != null) {
                deliverBatch(unit, stopping);
            } else {
                deliver(unit.get(0), stopping);
            }
        });
    }

    /** Works {@code delivery} to its settlement; {@code stopping} tells a cut-off from a failure. */
    private void deliver(InFlight delivery, BooleanSupplier stopping) {
        Decoded<T> decoded = decode(delivery);
        if (decoded == null) {
            return;
        }
        T payload = decoded.payload();
        if (settings.transactional() && form.transactionOf(delivery) != null) {
            deliverInClaimTransaction(delivery, payload, stopping);
        } else if (settings.transactional()) {
            deliverInTransaction(delivery, payload, stopping);
        } else {
            Result result = invoke(payload, delivery, stopping);
            if (result != null) {
                finish(delivery, lastAttempt(delivery, result));
            }
        }
    }

    /** A decoded payload (which may itself be null, for a JSON {@code null}). */
    private record Decoded<T>(T payload) {}

    /**
     * Decodes the payload, or settles a row that cannot be worked (attempts exhausted, payload
     * that does not decode) and returns null.
     */
    private Decoded<T> decode(InFlight delivery) {
        int max = settings.maxAttempts();
        if (max > 0 && delivery.attempt() > max) {
            // Its last attempts ended without a settlement (a crash spends an attempt too).
            finish(delivery, Outcome.drop("attempts exhausted: attempt " + delivery.attempt() + " of " + max
                    + " began after the earlier ones ended without settling"));
            return null;
        }
        try {
            if (delivery.payload() == null) {
                throw new IOException("the payload column is NULL");
            }
            return new Decoded<>(reader.readValue(delivery.payload()));
        } catch (IOException e) {
            String type = reader.getValueType().toCanonical();
            LOG.log(Level.WARNING, "queue {0}: row {1} of table {2} has a payload that cannot be decoded into {3},"
                    + " so it is {4}: {5}", queue, delivery.id(), spec.table(), type,
                    settings.deadLetters() ? "dead-lettered" : "dropped", e.getMessage());
            finish(delivery, Outcome.drop("payload cannot be decoded into " + type + ": " + e.getMessage()));
            return null;
        }
    }

    private void deliverBatch(List<InFlight> unit, BooleanSupplier stopping) {
        List<InFlight> deliveries = new ArrayList<>(unit.size());
        List<T> payloads = new ArrayList<>(unit.size());
        for (InFlight delivery : unit) {
            Decoded<T> decoded = decode(delivery);
            if (decoded != null) {
                deliveries.add(delivery);
                payloads.add(decoded.payload());
            }
        }
        if (deliveries.isEmpty()) {
            return;
        }
        List<Outcome> outcomes;
        String failure = null;
        try {
            outcomes = batchHandler.handle(Collections.unmodifiableList(payloads), List.copyOf(deliveries));
            if (outcomes == null || outcomes.size() != deliveries.size()) {
                failure = "the batch handler returned " + (outcomes == null ? "no" : outcomes.size())
                        + " outcomes for " + deliveries.size() + " payloads";
                LOG.log(Level.WARNING, "queue {0}: {1}; every row of the batch goes back for another attempt", queue,
                        failure);
                outcomes = Collections.nCopies(deliveries.size(), Outcome.retry());
            }
        } catch (InterruptedException e) {
            if (stopping.getAsBoolean()) {
                return;
            }
            Thread.currentThread().interrupt();
            outcomes = Collections.nCopies(deliveries.size(), Outcome.retry());
            failure = e.toString();
        } catch (Exception | LinkageError | AssertionError e) {
            LOG.log(Level.WARNING, () -> "queue " + queue + ": the batch handler failed on " + deliveries.size()
                    + " rows; they go back for another attempt", e);
            outcomes = Collections.nCopies(deliveries.size(), Outcome.retry());
            failure = e.toString();
        }
        for (int i = 0; i < deliveries.size(); i++) {
            Outcome outcome = outcomes.get(i) == null ? Outcome.ack() : outcomes.get(i);
            finish(deliveries.get(i), lastAttempt(deliveries.get(i), new Result(outcome, failure)));
        }
    }

    /** What the handler did: its outcome, and the failure text when it threw. */
    private record Result(Outcome outcome, String failure) {}

    /** Calls the handler; null when it was cut off at shutdown's drain timeout. */
    private Result invoke(T payload, InFlight delivery, BooleanSupplier stopping) {
        try {
            Outcome outcome = handler.handle(payload, delivery);
            return new Result(outcome == null ? Outcome.ack() : outcome, null);
        } catch (InterruptedException e) {
            if (stopping.getAsBoolean()) {
                return null;
            }
            Thread.currentThread().interrupt();
            return new Result(Outcome.retry(), e.toString());
        } catch (Exception | LinkageError | AssertionError e) {
            LOG.log(Level.WARNING, () -> "queue " + queue + ": the handler failed on row " + delivery.id()
                    + " (attempt " + delivery.attempt() + "); the row goes back for another attempt", e);
            return new Result(Outcome.retry(), e.toString());
        }
    }

    /** A retry on the last allowed attempt becomes a drop, into the dead-letter table. */
    private Outcome lastAttempt(InFlight delivery, Result result) {
        int max = settings.maxAttempts();
        if (result.outcome().kind() == Outcome.Kind.RETRY && max > 0 && delivery.attempt() >= max) {
            return Outcome.drop((result.failure() != null ? result.failure() : "the handler asked for a retry")
                    + " on attempt " + delivery.attempt() + " of " + max);
        }
        return result.outcome();
    }

    private void deliverInTransaction(InFlight delivery, T payload, BooleanSupplier stopping) {
        DeliveryTransactions.Open tx;
        try {
            tx = broker.deliveryTransactions().begin(spec);
        } catch (Exception e) {
            failed(delivery, Outcome.retry(), e);
            return;
        }
        boolean committed = false;
        Result result = null;
        DeliveryTransaction current = DeliveryTransaction.open(broker, tx.connection(), tx.locksDatabase());
        try {
            delivery.transaction(tx.connection(), tx.locksDatabase());
            try {
                result = invoke(payload, delivery, stopping);
            } finally {
                delivery.transaction(null, false);
            }
            if (result != null && result.outcome().kind() == Outcome.Kind.ACK) {
                committed = ackAndCommit(tx, delivery);
            } else {
                tx.rollback();
            }
        } catch (Exception e) {
            rollbackQuietly(tx, e);
            LOG.log(Level.WARNING, "queue {0}: the transaction of row {1} failed: {2}", queue, delivery.id(),
                    Redaction.redact(e.getMessage()));
            if (result == null || result.outcome().kind() == Outcome.Kind.ACK) {
                result = new Result(Outcome.retry(), e.toString());
            }
        } finally {
            tx.close();
            current.close(committed);
        }
        if (result != null && !committed && !isSettled(delivery)) {
            // Rolled back first; now the row settles in a transaction of its own (a retry still spends the attempt).
            finish(delivery, lastAttempt(delivery, result));
        }
    }

    private static void rollbackQuietly(DeliveryTransactions.Open tx, Exception cause) {
        try {
            tx.rollback();
        } catch (Exception e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * Row lock form: the claim's transaction is the delivery's. A savepoint taken before the
     * handler lets every outcome but an ack roll the handler's writes back and still settle the
     * row in the transaction that holds it.
     */
    private void deliverInClaimTransaction(InFlight delivery, T payload, BooleanSupplier stopping) {
        Connection tx = form.transactionOf(delivery);
        Savepoint beforeHandler;
        try {
            beforeHandler = tx.setSavepoint();
        } catch (SQLException e) {
            finish(delivery, Outcome.retry());
            return;
        }
        DeliveryTransaction current = DeliveryTransaction.open(broker, tx, false);
        boolean committed = false;
        try {
            delivery.transaction(tx, false);
            Result result;
            try {
                result = invoke(payload, delivery, stopping);
            } finally {
                delivery.transaction(null, false);
            }
            if (result == null) {
                return; // cut off: shutdown released the row
            }
            Outcome outcome = result.outcome();
            if (outcome.kind() != Outcome.Kind.ACK) {
                try {
                    tx.rollback(beforeHandler);
                } catch (SQLException e) {
                    LOG.log(Level.WARNING, "queue {0}: rolling back the handler''s writes of row {1} failed: {2}",
                            queue, delivery.id(), Redaction.redact(e.getMessage()));
                }
                outcome = lastAttempt(delivery, result);
            }
            committed = finish(delivery, outcome) && outcome.kind() == Outcome.Kind.ACK;
        } finally {
            current.close(committed);
        }
    }

    /** Settles the ack inside the delivery's transaction and commits both; false when it did not commit. */
    private boolean ackAndCommit(DeliveryTransactions.Open tx, InFlight delivery) throws Exception {
        synchronized (delivery) {
            if (delivery.settled()) {
                tx.rollback(); // cut off and released by shutdown
                return false;
            }
            try {
                form.settle(ConnectionSource.fixed(tx.connection()), delivery, Outcome.ack(), broker.clock().instant());
            } catch (InboxException e) {
                tx.rollback();
                delivery.markSettled();
                LOG.log(Level.WARNING, "{0}; the handler''s writes were rolled back", e.getMessage());
                listener.settlementFailed(queue, delivery.id(), Outcome.ack(), e);
                return false;
            }
            tx.commit();
            try {
                form.committed(delivery);
            } catch (SQLException | RuntimeException e) {
                LOG.log(Level.DEBUG, "queue {0}: releasing row {1} after its commit failed; its session ends",
                        queue, delivery.id());
            }
            settlementFailures.succeeded();
            delivery.markSettled();
            listener.settled(queue, delivery.id(), delivery.attempt(), Outcome.ack());
            return true;
        }
    }

    private static boolean isSettled(InFlight delivery) {
        synchronized (delivery) {
            return delivery.settled();
        }
    }

    /** Settles, sending a drop to the dead-letter table where the subscription declares one; true when it took effect. */
    boolean finish(InFlight delivery, Outcome outcome) {
        if (outcome.kind() == Outcome.Kind.DROP && settings.deadLetters()) {
            String error = outcome.reason() != null ? outcome.reason() : "dropped by the handler";
            return settle(delivery, outcome, (connection, now) -> form.deadLetter(connection, delivery, error, now));
        }
        if (acks != null && outcome.kind() == Outcome.Kind.ACK) {
            synchronized (delivery) {
                if (delivery.settled()) {
                    return false; // released by shutdown after a cut-off
                }
                delivery.markSettled(); // from here on the keeper leaves its token alone
            }
            acks.add(delivery);
            return true;
        }
        return settle(delivery, outcome, (connection, now) -> form.settle(connection, delivery, outcome, now));
    }

    /** Reports the acks written together, as {@link #settle} does one. */
    private final class AckReports implements AckBatcher.Reports {
        @Override
        public void acked(InFlight delivery) {
            settlementFailures.succeeded();
            listener.settled(queue, delivery.id(), delivery.attempt(), Outcome.ack());
        }

        @Override
        public void lost(InFlight delivery, InboxException error) {
            LOG.log(Level.WARNING, "{0}", error.getMessage());
            listener.settlementFailed(queue, delivery.id(), Outcome.ack(), error);
        }

        @Override
        public void failed(InFlight delivery, Exception error) {
            Deliverer.this.failed(delivery, Outcome.ack(), error);
        }
    }

    /** One settlement statement (or transaction) of a delivery. */
    @FunctionalInterface
    private interface Settlement {
        void run(ConnectionSource connections, Instant now) throws SQLException;
    }

    private boolean settle(InFlight delivery, Outcome outcome, Settlement settlement) {
        synchronized (delivery) {
            if (delivery.settled()) {
                return false; // released by shutdown after a cut-off
            }
            try {
                settlement.run(connections, broker.clock().instant());
                settlementFailures.succeeded();
                delivery.markSettled();
                listener.settled(queue, delivery.id(), delivery.attempt(), outcome);
                return true;
            } catch (InboxException e) {
                delivery.markSettled();
                LOG.log(Level.WARNING, "{0}", e.getMessage());
                listener.settlementFailed(queue, delivery.id(), outcome, e);
            } catch (SQLException | RuntimeException e) {
                failed(delivery, outcome, e);
            }
            return false;
        }
    }

    /** A settlement that failed: the row stays claimed until its claim ends, as after a crash. */
    private void failed(InFlight delivery, Outcome outcome, Exception e) {
        synchronized (delivery) {
            delivery.markSettled();
        }
        String detail = Redaction.redact(e.getMessage());
        InboxException error = new InboxException(InboxException.Kind.DATABASE, "queue " + queue + ": the "
                + outcome + " of row " + delivery.id() + " of table " + spec.table() + " failed; the row returns"
                + " when its claim ends: " + detail, e);
        // One warning per outage, however many rows it catches.
        settlementFailures.failed(() -> "the " + outcome + " of row " + delivery.id() + ": " + detail);
        listener.settlementFailed(queue, delivery.id(), outcome, error);
    }

    /**
     * Gives a claimed row back at once: it was claimed but will not be handled here.
     *
     * @param started true when a handler had it; false for a row claimed ahead and never worked
     */
    boolean release(InFlight delivery, boolean started) {
        synchronized (delivery) {
            if (delivery.settled()) {
                return false;
            }
            delivery.markSettled();
            try {
                return form.release(connections, delivery, started);
            } catch (SQLException | RuntimeException e) {
                LOG.log(Level.WARNING, "queue {0}: row {1} of table {2} could not be released and returns when its"
                        + " claim ends: {3}", queue, delivery.id(), spec.table(), Redaction.redact(e.getMessage()));
                return false;
            }
        }
    }
}
