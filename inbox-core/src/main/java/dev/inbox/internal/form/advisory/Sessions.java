package dev.inbox.internal.form.advisory;

import dev.inbox.ShutdownReport;
import dev.inbox.internal.task.Service;
import dev.inbox.spi.Threads;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The advisory lock sessions that hold rows: counted for the scans of the next claims, and, at
 * shutdown once the claims have stopped, made to release the locks of deliveries in work (their
 * settlements then fail with {@code CLOSED} and their rows are back in the queue).
 */
final class Sessions implements Service {
    private final Set<Session> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger closed = new AtomicInteger();

    void add(Session session) {
        open.add(session);
    }

    /** The session holds no lock any more: no claim's scan reads past its rows. */
    void remove(Session session) {
        open.remove(session);
    }

    /** A session closed instead of given back, so that the locks it held ended with it. */
    void closedInstead() {
        closed.incrementAndGet();
    }

    /** The locks the sessions hold, read without their monitors: how far past them a claim's scan must read. */
    int held() {
        int held = 0;
        for (Session session : open) {
            held += session.held();
        }
        return held;
    }

    @Override
    public void start(Threads threads) {}

    /** Releases the lock of every delivery in work; counts them, and the sessions closed instead of given back. */
    @Override
    public ShutdownReport stop(long deadline) {
        int released = 0;
        for (Session session : open) {
            released += session.releaseAll();
        }
        return new ShutdownReport(0, released, 0, closed.get());
    }

    @Override
    public String toString() {
        return "the advisory lock sessions";
    }
}
