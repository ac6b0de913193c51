package dev.inbox.engine;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.form.Reports;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** What became of each settlement, a line each: "id acked on thread", "id LEASE_LOST", "id failed: error". */
final class RecordedReports implements Reports {
    final List<String> lines = new CopyOnWriteArrayList<>();

    @Override
    public void settled(InFlight delivery, Outcome outcome) {
        lines.add(delivery.id() + " acked on " + Thread.currentThread().getName());
    }

    @Override
    public void lost(InFlight delivery, Outcome outcome, InboxException error) {
        lines.add(delivery.id() + " " + error.kind());
    }

    @Override
    public void failed(InFlight delivery, Outcome outcome, Exception error) {
        lines.add(delivery.id() + " failed: " + error);
    }
}
