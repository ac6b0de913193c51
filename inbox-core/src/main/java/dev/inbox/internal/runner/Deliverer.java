package dev.inbox.internal.runner;

import dev.inbox.internal.codec.PayloadReader;
import dev.inbox.BatchHandler;
import dev.inbox.Handler;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.internal.form.HandlerTransaction;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.jdbc.LostRaces;
import dev.inbox.internal.jdbc.Redaction;
import dev.inbox.internal.jdbc.WriteGate;
import dev.inbox.spi.JobTracing;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * Works one delivery: decodes its payload, calls the handler, turns what happened into an outcome
 * (a thrown exception is a retry; the last failed attempt or a drop goes to the dead-letter table
 * where one is declared) and settles it through its claim. In a transactional subscription the
 * handler runs inside the delivery's transaction, which an ack commits together with the settlement.
 */
public final class Deliverer<T> {
    private static final System.Logger LOG = System.getLogger(Deliverer.class.getName());

    private final EngineContext engine;
    private final String queue;
    private final InboxSpec spec;
    private final Handler<T> handler;
    private final BatchHandler<T> batchHandler;
    private final PayloadReader<T> reader;
    private final RunnerSettings settings;
    private final SettlementReports reports;
    private final RetryBackoff backoff;
    private final HandlerFailures failures;
    /** True where the table holds when a retried row is due (a lease or retry_after column). */
    private final boolean delaysRetries;
    /** What a handler call comes to where the handler timeout cut in; nothing checked without one. */
    private final HandlerTimeout timeout;
    /** A delivery's transaction that lost a race (on Galera, certification to another node's). */
    private final LostRaces races;
    /** What a failed attempt writes into the table's last error column; nothing without one. */
    private final LastErrors lastErrors;
    /** How deliveries are traced, chosen at open ({@link JobTracing#NONE} for not at all). */
    private final JobTracing tracing;

    /** Exactly one of {@code handler} and {@code batchHandler} is given. */
    public Deliverer(EngineContext engine, String queue, InboxSpec spec, Handler<T> handler, BatchHandler<T> batchHandler,
            PayloadReader<T> reader, RunnerSettings settings, SettlementReports reports, LastErrors lastErrors) {
        this.engine = engine;
        this.lastErrors = lastErrors;
        this.queue = queue;
        this.spec = spec;
        this.handler = handler;
        this.batchHandler = batchHandler;
        this.reader = reader;
        this.settings = settings;
        this.reports = reports;
        this.backoff = new RetryBackoff(settings.retryBackoff(), settings.retryBackoffMax());
        this.failures = new HandlerFailures(queue);
        this.delaysRetries = spec.lease().isPresent() || spec.retryAfter().isPresent();
        this.timeout = HandlerTimeout.of(settings.handlerTimeout());
        this.races = new LostRaces(queue, "delivery", engine.database().dialect(), engine.listener());
        this.tracing = engine.tracing();
    }

    /** Works the deliveries of one unit (one delivery, or a batch) to their settlements. */
    void deliver(List<InFlight> unit, BooleanSupplier stopping) {
        // The application's context (class loader, naming, CDI, transactions) for the whole delivery.
        inHandlerContext(() -> deliverHere(unit, stopping));
    }

    /**
     * Runs {@code work} on this thread in the application's context. Entered once: a context
     * entered again inside it may suspend the transaction begun in the outer one.
     */
    void inHandlerContext(Runnable work) {
        engine.handlerContext().execute(work);
    }

    /** {@link #deliver}, for a caller already in the application's context. */
    void deliverHere(List<InFlight> unit, BooleanSupplier stopping) {
        // The trace chosen at open; without tracing a constant that does nothing.
        if (batchHandler != null) {
            try (JobTracing.DeliveryTrace trace = tracing.deliveringBatch(queue, unit)) {
                deliverBatch(unit, stopping, trace);
            }
        } else {
            try (JobTracing.DeliveryTrace trace = tracing.delivering(queue, unit.get(0))) {
                deliver(unit.get(0), stopping, trace);
            }
        }
    }

    /** Works {@code delivery} to its settlement; {@code stopping} tells a cut-off from a failure. */
    private void deliver(InFlight delivery, BooleanSupplier stopping, JobTracing.DeliveryTrace trace) {
        Decoded<T> decoded = decode(delivery, trace);
        if (decoded == null) {
            return;
        }
        if (settings.transactional()) {
            deliverInTransaction(delivery, decoded.payload(), stopping, trace);
        } else {
            Result result = invoke(decoded.payload(), delivery, stopping);
            if (result != null) {
                Outcome outcome = afterAttempt(delivery, result);
                traced(trace, delivery, result, outcome);
                finish(delivery, result, outcome);
            }
        }
    }

    /** A decoded payload, never null. */
    private record Decoded<T>(T payload) {}

    /**
     * Decodes the payload, or settles a row that cannot be worked (attempts exhausted, payload
     * that does not decode) and returns null.
     */
    private Decoded<T> decode(InFlight delivery, JobTracing.DeliveryTrace trace) {
        int max = settings.maxAttempts();
        if (max > 0 && delivery.attempt() > max) {
            // Its last attempts ended without a settlement (a crash spends an attempt too).
            Outcome drop = Outcome.drop("attempts exhausted: attempt " + delivery.attempt() + " of " + max
                    + " began after the earlier ones ended without settling");
            trace.settled(delivery, drop);
            finish(delivery, drop);
            return null;
        }
        try {
            if (delivery.payload() == null) {
                throw new IOException("the payload column is NULL");
            }
            T payload = reader.read(delivery.payload());
            if (payload == null) {
                // No publish writes one (a null payload is refused): another program did.
                throw new IOException("the payload is JSON null");
            }
            return new Decoded<>(payload);
        } catch (IOException e) {
            String type = reader.typeName();
            LOG.log(Level.WARNING, "queue {0}: row {1} of table {2} has a payload that cannot be decoded into {3},"
                    + " so it is {4}: {5}", queue, String.valueOf(delivery.id()), spec.table(), type,
                    settings.deadLetters() ? "dead-lettered" : "dropped", e.getMessage());
            Outcome drop = Outcome.drop("payload cannot be decoded into " + type + ": " + e.getMessage());
            trace.settled(delivery, drop);
            finish(delivery, drop);
            return null;
        }
    }

    private void deliverBatch(List<InFlight> unit, BooleanSupplier stopping, JobTracing.DeliveryTrace trace) {
        List<InFlight> deliveries = new ArrayList<>(unit.size());
        List<T> payloads = new ArrayList<>(unit.size());
        for (InFlight delivery : unit) {
            Decoded<T> decoded = decode(delivery, trace);
            if (decoded != null) {
                deliveries.add(delivery);
                payloads.add(decoded.payload());
            }
        }
        if (deliveries.isEmpty()) {
            return;
        }
        List<Outcome> outcomes;
        Throwable failure = null;
        long started = System.nanoTime();
        try {
            outcomes = batchHandler.handle(Collections.unmodifiableList(payloads), List.copyOf(deliveries));
            if (outcomes == null || outcomes.size() != deliveries.size()) {
                failure = new IllegalStateException("the batch handler returned " + (outcomes == null ? "no"
                        : outcomes.size()) + " outcomes for " + deliveries.size() + " payloads");
                outcomes = Collections.nCopies(deliveries.size(), Outcome.retry());
            }
        } catch (InterruptedException e) {
            if (stopping.getAsBoolean()) {
                return;
            }
            Thread.currentThread().interrupt();
            outcomes = Collections.nCopies(deliveries.size(), Outcome.retry());
            failure = e;
        } catch (Throwable e) {
            // An Error too (a StackOverflowError in the handler, say): the rows settle and the worker goes on.
            outcomes = Collections.nCopies(deliveries.size(), Outcome.retry());
            failure = e;
        }
        Exception late = null;
        for (InFlight delivery : deliveries) {
            Exception timedOut = timeout.afterHandler(delivery);
            late = late != null ? late : timedOut;
        }
        if (late != null) {
            outcomes = Collections.nCopies(deliveries.size(), Outcome.retry());
            failure = late;
        }
        engine.listener().handled(queue, deliveries.size(), Elapsed.since(started), failure);
        if (late != null && deliveries.stream().allMatch(InFlight::isSettled)) {
            return; // settled by the watch while the handler ran on, and logged
        }
        // The rows of a batch that failed together come back together: one wait for all of them.
        Outcome retry = Outcome.retry(backoff.after(deliveries.get(0).attempt()));
        List<Outcome> settled = new ArrayList<>(deliveries.size());
        List<String> lastErrorTexts = new ArrayList<>(deliveries.size());
        for (int i = 0; i < deliveries.size(); i++) {
            Outcome outcome = outcomes.get(i) == null ? Outcome.ack() : outcomes.get(i);
            boolean waits = outcome.kind() == Outcome.Kind.RETRY && outcome.delay().isZero();
            settled.add(decide(deliveries.get(i), new Result(waits ? retry : outcome, failure)));
            lastErrorTexts.add(lastErrors.of(failure, outcome));
        }
        if (failure != null) {
            failures.failed(deliveries.size() + " rows (ids " + deliveries.stream().limit(10)
                    .map(d -> String.valueOf(d.id())).collect(Collectors.joining(", "))
                    + (deliveries.size() > 10 ? ", ..." : "") + ")", failure, "they " + next(settled.get(0)));
        }
        // One instant for the whole batch, so that rows retried together are due together.
        Instant now = engine.clock().instant();
        if (failure != null) {
            trace.failed(failure);
        }
        for (int i = 0; i < deliveries.size(); i++) {
            trace.settled(deliveries.get(i), settled.get(i));
            finish(deliveries.get(i), settled.get(i), lastErrorTexts.get(i), now);
        }
    }

    /** What the handler did: its outcome, and what it threw, if it did. */
    private record Result(Outcome outcome, Throwable failure) {}

    /**
     * Calls the handler; null when it was cut off at shutdown's drain timeout, or timed out and
     * settled meanwhile.
     */
    private Result invoke(T payload, InFlight delivery, BooleanSupplier stopping) {
        long started = System.nanoTime();
        Result result;
        try {
            Outcome outcome = handler.handle(payload, delivery);
            result = new Result(outcome == null ? Outcome.ack() : outcome, null);
        } catch (InterruptedException e) {
            if (stopping.getAsBoolean()) {
                return null;
            }
            Thread.currentThread().interrupt();
            result = new Result(Outcome.retry(), e);
        } catch (Throwable e) {
            // An Error too (a StackOverflowError in the handler, say): the row settles and the worker goes on.
            result = new Result(Outcome.retry(), e);
        }
        Exception late = timeout.afterHandler(delivery);
        if (late != null) {
            result = new Result(Outcome.retry(), late);
        }
        engine.listener().handled(queue, 1, Elapsed.since(started), result.failure());
        // Settled by the watch while the handler ran on: its failed attempt is written and logged already.
        return late != null && delivery.isSettled() ? null : result;
    }

    /** Tells {@code trace} how the handler's call of {@code delivery} ended. */
    private static void traced(JobTracing.DeliveryTrace trace, InFlight delivery, Result result, Outcome outcome) {
        if (result.failure() != null) {
            trace.failed(result.failure());
        }
        trace.settled(delivery, outcome);
    }

    /** The outcome that settles an attempt, and one log line when it failed. */
    private Outcome afterAttempt(InFlight delivery, Result result) {
        Outcome outcome = decide(delivery, result);
        if (result.failure() != null) {
            failures.failed("row " + delivery.id() + " (attempt " + delivery.attempt() + ")", result.failure(),
                    "it " + next(outcome));
        }
        return outcome;
    }

    /**
     * A retry on the last allowed attempt becomes a drop, into the dead-letter table; any other
     * retry the handler gave no delay waits out the back-off.
     */
    private Outcome decide(InFlight delivery, Result result) {
        Outcome outcome = result.outcome();
        if (outcome.kind() != Outcome.Kind.RETRY) {
            return outcome;
        }
        int max = settings.maxAttempts();
        if (max > 0 && delivery.attempt() >= max) {
            return Outcome.drop((result.failure() != null ? HandlerFailures.describe(result.failure())
                    : outcome.reason() != null ? LastErrors.ASKED + ": " + Redaction.redact(outcome.reason())
                    : LastErrors.ASKED) + " on attempt " + delivery.attempt() + " of " + max);
        }
        return outcome.delay().isZero() ? Outcome.retry(backoff.after(delivery.attempt())) : outcome;
    }

    /** What becomes of a row settled with {@code outcome}, for the log. */
    private String next(Outcome outcome) {
        if (outcome.kind() == Outcome.Kind.DROP) {
            return settings.deadLetters() ? "moves to the dead-letter table: " + outcome.reason() : "is dropped";
        }
        if (!delaysRetries) {
            return "is due again at once: table " + spec.table() + " has no retry_after column to space retries";
        }
        return outcome.delay().isZero() ? "is due again at once"
                : "is due again in " + outcome.delay().toMillis() + " ms";
    }

    /**
     * Runs the handler in the delivery's transaction (the claim's own in the row lock form, else
     * one the broker's transactions begin). An ack commits the handler's writes with the
     * settlement; any other outcome rolls them back first, and the row then settles apart.
     */
    private void deliverInTransaction(InFlight delivery, T payload, BooleanSupplier stopping,
            JobTracing.DeliveryTrace trace) {
        HandlerTransaction tx;
        try {
            tx = delivery.claim().begin(delivery, engine.transactions());
        } catch (Exception e) {
            LOG.log(Level.WARNING, "queue {0}: the transaction of row {1} could not begin, so the row goes back for"
                    + " another attempt: {2}", queue, String.valueOf(delivery.id()), HandlerFailures.describe(e));
            Result failed = new Result(Outcome.retry(), e);
            Outcome outcome = decide(delivery, failed);
            traced(trace, delivery, failed, outcome);
            finish(delivery, failed, outcome);
            return;
        }
        boolean committed = false;
        boolean logged = false;
        Result result = null;
        CurrentDelivery current = CurrentDelivery.open(engine.database(), tx.connection(),
                tx.locksDatabase(), engine.wakes());
        try {
            delivery.transaction(tx.connection(), tx.locksDatabase());
            try {
                result = invoke(payload, delivery, stopping);
            } finally {
                delivery.transaction(null, false);
            }
            // The handler's statement the database aborted for a concurrent transaction: no failure of the handler's.
            logged = result != null && result.failure() instanceof SQLException e && races.lost(e);
            if (result != null && result.outcome().kind() == Outcome.Kind.ACK) {
                committed = ackAndCommit(tx, delivery);
                if (committed) {
                    trace.settled(delivery, result.outcome());
                }
            } else {
                tx.rollback();
            }
        } catch (Exception e) {
            rollbackQuietly(tx, e);
            // A commit that lost a race (on Galera, certification to another node's) is told and logged as one.
            if (!(e instanceof SQLException race && races.lost(race))) {
                LOG.log(Level.WARNING, "queue {0}: the transaction of row {1} failed, so the handler''s writes were"
                        + " rolled back: {2}", queue, String.valueOf(delivery.id()), HandlerFailures.describe(e));
            }
            if (result == null || result.outcome().kind() == Outcome.Kind.ACK) {
                result = new Result(Outcome.retry(), e);
                logged = true;
            }
        } finally {
            tx.close();
            current.close(committed);
        }
        if (result != null && !committed && !delivery.isSettled()) {
            // Rolled back first; now the row settles in a transaction of its own (a retry still spends the attempt).
            Outcome outcome = logged ? decide(delivery, result) : afterAttempt(delivery, result);
            traced(trace, delivery, result, outcome);
            finish(delivery, result, outcome);
        }
    }

    private static void rollbackQuietly(HandlerTransaction tx, Exception cause) {
        try {
            tx.rollback();
        } catch (Exception e) {
            cause.addSuppressed(e);
        }
    }

    /** Settles the ack inside the delivery's transaction and commits both; false when it did not commit. */
    private boolean ackAndCommit(HandlerTransaction tx, InFlight delivery) throws Exception {
        boolean committed;
        try {
            committed = delivery.commitOnce(() -> tx.commitAck(engine.clock().instant()));
        } catch (InboxException e) {
            rollbackQuietly(tx, e);
            LOG.log(Level.WARNING, "{0}; the handler''s writes were rolled back", e.getMessage());
            reports.unsettled(delivery, Outcome.ack(), e);
            return false;
        }
        if (!committed) {
            tx.rollback(); // cut off and released by shutdown
            return false;
        }
        reports.settled(delivery, Outcome.ack());
        return true;
    }

    /**
     * Settles the attempt of a delivery whose handler outran the handler timeout as failed, while
     * that handler may still run: where its claim allows it ({@link dev.inbox.internal.form.Claim#settlesBesideItsHandler}).
     */
    void timedOut(InFlight delivery) {
        Result result = new Result(Outcome.retry(), HandlerTimeout.failure(settings.handlerTimeout()));
        finish(delivery, result, afterAttempt(delivery, result));
    }

    /** Settles, sending a drop to the dead-letter table where the subscription declares one. */
    void finish(InFlight delivery, Outcome outcome) {
        finish(delivery, outcome, null, engine.clock().instant());
    }

    /** Settles the attempt that came to {@code result} with {@code outcome}, writing its last error where kept. */
    private void finish(InFlight delivery, Result result, Outcome outcome) {
        finish(delivery, outcome, lastErrors.of(result.failure(), result.outcome()), engine.clock().instant());
    }

    /**
     * {@link #finish(InFlight, Outcome)} as of {@code now}, a retry or a dead letter writing
     * {@code lastError} (where not null) into the last error column.
     */
    private void finish(InFlight delivery, Outcome outcome, String lastError, Instant now) {
        // Where the database refuses the settlement, the row waits out the back-off of its attempt.
        Duration ifRefused = backoff.after(delivery.attempt());
        if (outcome.kind() == Outcome.Kind.DROP && settings.deadLetters()) {
            String error = outcome.reason() != null ? outcome.reason() : "dropped by the handler";
            settle(delivery, outcome, now, at -> delivery.claim().deadLetter(delivery, error, lastError, at,
                    ifRefused));
        } else if (outcome.kind() == Outcome.Kind.ACK) {
            // Settled from here on, so the keeper leaves its token alone; a row released by shutdown after
            // a cut-off is not acked.
            if (delivery.settleOnce(false, () -> true)) {
                delivery.claim().ack(delivery, now);
            }
        } else {
            // A retry's reason is the text its statement writes into the last error column; the reports
            // and the listener see the outcome as it was.
            Outcome written = lastError == null || outcome.kind() != Outcome.Kind.RETRY ? outcome
                    : Outcome.retry(outcome.delay(), lastError);
            settle(delivery, outcome, now, at -> delivery.claim().settle(delivery, written, at, ifRefused));
        }
    }

    /** One settlement statement (or transaction) of a delivery. */
    @FunctionalInterface
    private interface Settlement {
        void run(Instant now) throws SQLException;
    }

    private void settle(InFlight delivery, Outcome outcome, Instant now, Settlement settlement) {
        // The writers' turn (where the database takes one writer at a time) before the row's monitor,
        // as a transactional delivery holds its turn and then takes its row's monitor to settle.
        try (WriteGate.Turn turn = engine.database().writeTurn()) {
            delivery.settleOnce(null, () -> {
                try {
                    settlement.run(now);
                    reports.settled(delivery, outcome);
                } catch (InboxException e) {
                    if (e.kind() == InboxException.Kind.DATABASE) {
                        reports.failed(delivery, outcome, e);
                    } else {
                        reports.lost(delivery, outcome, e);
                    }
                } catch (SQLException | RuntimeException e) {
                    reports.failed(delivery, outcome, e);
                }
                return null;
            });
        }
    }

    /**
     * Gives a claimed row back at once: it was claimed but will not be handled here.
     *
     * @param started true when a handler had it; false for a row claimed ahead and never worked
     */
    boolean release(InFlight delivery, boolean started) {
        try (WriteGate.Turn turn = engine.database().writeTurn()) { // the turn before the monitor, as above
            return delivery.settleOnce(false, () -> {
                try {
                    return delivery.claim().release(delivery, started);
                } catch (SQLException | RuntimeException e) {
                    LOG.log(Level.WARNING, "queue {0}: row {1} of table {2} could not be released and returns when"
                            + " its claim ends: {3}", queue, String.valueOf(delivery.id()), spec.table(),
                            Redaction.redact(e.getMessage()));
                    return false;
                }
            });
        }
    }
}
