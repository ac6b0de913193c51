package dev.inbox.internal.form.advisory;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.internal.form.AckBatch;
import dev.inbox.internal.form.AckCarry;
import dev.inbox.internal.form.Carry;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.form.Reports;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The acks of advisory lock claims whose deliveries are done, where the database takes one writer
 * at a time and the locks are the process's own (SQLite): each waits, its row still locked, in an
 * {@link AckCarry} for the next claim, whose transaction writes it with the claim's count of
 * attempts (one commit where two were). A row's lock goes once its ack is written, or has failed
 * and the row is back.
 */
final class ParkedAcks {
    /** How many acks may wait for a claim to write them before a worker writes them itself. */
    static final int ROOM = 256;

    private final ProcessLocks locks;
    private final Reports reports;
    /** The lock of each ack waiting, released as it is reported. */
    private final Map<InFlight, String> keys = new ConcurrentHashMap<>();
    private final AckCarry carry;
    /** Reports each ack once its row's lock is released. */
    private final Reports releasing = new Reports() {
        @Override
        public void settled(InFlight delivery, Outcome outcome) {
            unlock(delivery);
            reports.settled(delivery, outcome);
        }

        @Override
        public void lost(InFlight delivery, Outcome outcome, InboxException error) {
            unlock(delivery);
            reports.lost(delivery, outcome, error);
        }

        @Override
        public void failed(InFlight delivery, Outcome outcome, Exception error) {
            unlock(delivery);
            reports.failed(delivery, outcome, error);
        }
    };

    ParkedAcks(FormContext context, AckBatch empty, ProcessLocks locks) {
        this.locks = locks;
        this.reports = context.reports();
        this.carry = new AckCarry("inbox-" + context.queue() + "-acks", empty, context.connections(),
                context.dialect(), releasing, ROOM, Carry.WAIT);
    }

    /** Parks the ack of {@code delivery}, whose row stays locked under {@code key} until the ack is written. */
    void park(InFlight delivery, String key, Instant now) {
        keys.put(delivery, key);
        carry.add(delivery, now);
    }

    /** Where the acks wait for a claim. */
    AckCarry carry() {
        return carry;
    }

    /** The locks held for acks waiting. */
    int held() {
        return keys.size();
    }

    private void unlock(InFlight delivery) {
        String key = keys.remove(delivery);
        if (key != null) {
            locks.unlock(null, key);
        }
    }
}
