package dev.inbox.engine;

import dev.inbox.InboxException;
import dev.inbox.InboxException.Kind;

/**
 * Where a broker is in its life (configured, open, closed), as its publishers see it: they reach
 * their queue through it, and fail with {@code CLOSED} once it has shut down.
 */
final class Lifecycle {
    private volatile OpenedBroker opened;
    private volatile boolean closed;

    void opened(OpenedBroker broker) {
        opened = broker;
    }

    /** Sets the closed flag; returns the broker opened, or null when it never opened. */
    OpenedBroker close() {
        closed = true;
        return opened;
    }

    boolean isClosed() {
        return closed;
    }

    /** The open broker; null before {@code connect()}. */
    OpenedBroker opened() {
        return opened;
    }

    /**
     * The open broker's view of {@code queue} for a publisher.
     *
     * @throws InboxException {@code CLOSED} after shutdown, {@code LIFECYCLE} before {@code connect()}
     */
    PublishQueue publishing(String queue) {
        if (closed) {
            throw closed(queue);
        }
        OpenedBroker broker = opened;
        if (broker == null) {
            throw new InboxException(Kind.LIFECYCLE, "queue " + queue + ": the broker has not connected yet;"
                    + " publish once connect() has returned");
        }
        return broker.publishing(queue);
    }

    static InboxException closed(String queue) {
        return new InboxException(Kind.CLOSED, "the broker has shut down: queue " + queue + " takes no more work;"
                + " publish through a running broker");
    }
}
