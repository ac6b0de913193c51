package dev.inbox.spi;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import java.time.Duration;
import java.util.List;

/** {@link BrokerListener#all}: tells each listener in turn. */
final class Listeners implements BrokerListener {
    private final List<BrokerListener> each;

    Listeners(List<BrokerListener> each) {
        this.each = each;
    }

    @Override
    public void published(String queue, int jobs) {
        each.forEach(l -> l.published(queue, jobs));
    }

    @Override
    public void claimed(String queue, int rows, Duration took) {
        each.forEach(l -> l.claimed(queue, rows, took));
    }

    @Override
    public void handled(String queue, int jobs, Duration took, Throwable error) {
        each.forEach(l -> l.handled(queue, jobs, took, error));
    }

    @Override
    public void finished(String queue, Result result) {
        each.forEach(l -> l.finished(queue, result));
    }

    @Override
    public void settled(String queue, Object id, int attempt, Outcome outcome) {
        each.forEach(l -> l.settled(queue, id, attempt, outcome));
    }

    @Override
    public void settlementFailed(String queue, Object id, Outcome outcome, InboxException error) {
        each.forEach(l -> l.settlementFailed(queue, id, outcome, error));
    }

    @Override
    public void databaseFailed(String queue, String what, Exception error) {
        each.forEach(l -> l.databaseFailed(queue, what, error));
    }

    @Override
    public void raceLost(String queue, String what) {
        each.forEach(l -> l.raceLost(queue, what));
    }
}
