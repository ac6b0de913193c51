package dev.inbox.internal.broker;

import dev.inbox.InboxException.Kind;
import dev.inbox.InboxException;

/**
 * Where a broker is in its life (configured, open, closed), as its publishers see it: they reach
 * their queue through it, and fail with {@code CLOSED} once it has shut down.
 */
public final class Lifecycle {
    private volatile OpenedBroker opened;
    private volatile boolean closed;

    public void opened(OpenedBroker broker) {
        opened = broker;
    }

    /** Sets the closed flag; returns the broker opened, or null when it never opened. */
    public OpenedBroker close() {
        closed = true;
        return opened;
    }

    public boolean isClosed() {
        return closed;
    }

    /** The open broker; null before {@code connect()}. */
    public OpenedBroker opened() {
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

    /**
     * The open broker, to {@code what}.
     *
     * @throws InboxException {@code CLOSED} after shutdown, {@code LIFECYCLE} before {@code connect()}
     */
    public OpenedBroker running(String what) {
        if (closed) {
            throw new InboxException(Kind.CLOSED, "the broker has shut down, so it cannot " + what);
        }
        OpenedBroker broker = opened;
        if (broker == null) {
            throw new InboxException(Kind.LIFECYCLE, "the broker has not connected, so it cannot " + what
                    + ": call connect() first");
        }
        return broker;
    }

    static InboxException closed(String queue) {
        return new InboxException(Kind.CLOSED, "the broker has shut down: queue " + queue + " takes no more work;"
                + " publish through a running broker");
    }
}
