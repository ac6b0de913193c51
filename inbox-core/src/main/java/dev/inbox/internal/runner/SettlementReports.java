package dev.inbox.internal.runner;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.form.Reports;
import dev.inbox.internal.jdbc.Redaction;
import dev.inbox.internal.task.FailureLog;
import dev.inbox.spi.BrokerListener;
import java.lang.System.Logger.Level;

/**
 * What became of one subscription's settlements: each goes to the broker's listener, a lost one
 * to the log, and a failed one to the log once per outage.
 */
public final class SettlementReports implements Reports {
    private static final System.Logger LOG = System.getLogger(SettlementReports.class.getName());

    private final String queue;
    private final String table;
    private final BrokerListener listener;
    private final FailureLog failures;
    /** The dead-letter table, or null where dropped rows are deleted. */
    private final String deadLetters;

    public SettlementReports(String queue, String table, BrokerListener listener, String deadLetters) {
        this.queue = queue;
        this.table = table;
        this.listener = listener;
        this.deadLetters = deadLetters;
        this.failures = new FailureLog(LOG, "queue " + queue + ": settling rows of table " + table,
                "each row not settled comes back after its retry back-off, or when its claim ends where the"
                        + " table cannot delay it, and further failures are logged at DEBUG until a settlement succeeds");
    }

    @Override
    public void settled(InFlight delivery, Outcome outcome) {
        failures.succeeded();
        listener.settled(queue, delivery.id(), delivery.attempt(), outcome);
        listener.finished(queue, switch (outcome.kind()) {
            case ACK -> BrokerListener.Result.ACK;
            case RETRY -> BrokerListener.Result.RETRY;
            case DROP -> deadLetters != null ? BrokerListener.Result.DEAD_LETTER : BrokerListener.Result.DROP;
        });
    }

    @Override
    public void lost(InFlight delivery, Outcome outcome, InboxException error) {
        LOG.log(Level.WARNING, "{0}", error.getMessage());
        unsettled(delivery, outcome, error);
    }

    @Override
    public void failed(InFlight delivery, Outcome outcome, Exception error) {
        String detail = Redaction.redact(String.valueOf(error.getMessage()));
        String what = outcome.kind() == Outcome.Kind.DROP && deadLetters != null
                ? "move of row " + delivery.id() + " of table " + table + " to dead-letter table " + deadLetters
                        + " (" + outcome + ")"
                : outcome + " of row " + delivery.id() + " of table " + table;
        InboxException failure = new InboxException(InboxException.Kind.DATABASE, "queue " + queue + ": the "
                + what + " failed; the row comes back after its retry back-off, or when its"
                + " claim ends: " + detail, error);
        // One warning per outage, however many rows it catches.
        failures.failed(() -> "the " + what + ": " + detail);
        unsettled(delivery, outcome, failure);
    }

    /**
     * Tells the listener that a settlement did not take effect: a failed statement ({@code DATABASE})
     * ends the delivery as {@code FAILED}, any other refusal as {@code LEASE_LOST}.
     */
    void unsettled(InFlight delivery, Outcome outcome, InboxException error) {
        listener.settlementFailed(queue, delivery.id(), outcome, error);
        listener.finished(queue, error.kind() == InboxException.Kind.DATABASE ? BrokerListener.Result.FAILED
                : BrokerListener.Result.LEASE_LOST);
    }
}
