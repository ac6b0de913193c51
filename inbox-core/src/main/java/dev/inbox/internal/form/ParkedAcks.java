package dev.inbox.internal.form;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.spi.Threads;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The acks of advisory lock claims whose deliveries are done, where the database takes one writer
 * at a time and the locks are the process's own (SQLite): each waits, its row still locked, for
 * the next claim, whose transaction writes it with the claim's count of attempts (one commit where
 * two were); acks no claim takes are written by a writer of their own once the subscription goes
 * quiet, or after {@link AckWriter#CARRY_WAIT}. A row's lock goes once its ack is written, or has
 * failed and the row is back.
 */
final class ParkedAcks {
    private final ProcessLocks locks;
    private final Reports reports;
    /** The lock of each ack waiting, released as it is reported. */
    private final Map<InFlight, String> keys = new ConcurrentHashMap<>();
    private final AckWriter writer;
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

    /** @param room how many acks may wait before a worker writes them itself */
    ParkedAcks(FormContext context, AckBatch empty, ProcessLocks locks, int room) {
        this.locks = locks;
        this.reports = context.reports();
        this.writer = new AckWriter(empty, context.connections(), context.dialect(), releasing, room, true);
    }

    void start(Threads threads, String name) {
        writer.start(threads, name);
    }

    /** Parks the ack of {@code delivery}, whose row stays locked under {@code key} until the ack is written. */
    void park(InFlight delivery, String key, Instant now) {
        keys.put(delivery, key);
        writer.add(delivery, now);
    }

    /** The subscription went quiet: the writer writes the acks waiting, as no claim may come for them. */
    void writeUncarried() {
        writer.writeUncarried();
    }

    /** The acks waiting, for a claim to write and report through {@link #reports()}; null when none wait. */
    AckBatch take() {
        return writer.takeForClaim();
    }

    /** Acks a claim took and could not write, its transaction having failed with {@code e} before them. */
    void notWritten(AckBatch batch, Exception e) {
        writer.notCarried(batch, e);
    }

    /** Where the acks taken are reported: each row's lock is released first. */
    Reports reports() {
        return releasing;
    }

    /** The locks held for acks waiting. */
    int held() {
        return keys.size();
    }

    /** Shutdown: writes the acks waiting; false when the writer took longer than {@code wait}. */
    boolean close(Duration wait) throws InterruptedException {
        return writer.close(wait);
    }

    private void unlock(InFlight delivery) {
        String key = keys.remove(delivery);
        if (key != null) {
            locks.unlock(null, key);
        }
    }
}
