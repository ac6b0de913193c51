package dev.inbox.internal.runner;

import dev.inbox.internal.form.InFlight;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * What a delivery's handler call comes to where a handler timeout may have cut in, chosen once as
 * the subscription opens: without a timeout nothing is checked, so the hot path pays nothing.
 */
interface HandlerTimeout {
    /** No handler timeout: what the handler did stands. */
    HandlerTimeout NONE = delivery -> null;

    /**
     * Called on the worker's thread once the handler has returned or thrown: the failure that
     * replaces what it did, where {@link HandlerWatch} timed it out first; else null.
     */
    Exception afterHandler(InFlight delivery);

    /** The check for {@code timeout}, or {@link #NONE} where it is null. */
    static HandlerTimeout of(Duration timeout) {
        if (timeout == null) {
            return NONE;
        }
        return delivery -> {
            if (!delivery.handlerReturned()) {
                return null;
            }
            Thread.interrupted(); // the interrupt was the watch's, and is spent: the settlement goes on
            return failure(timeout);
        };
    }

    /** The failure of an attempt whose handler outran {@code timeout}. */
    static Exception failure(Duration timeout) {
        return new TimeoutException("the handler ran longer than its handler-timeout of " + timeout.toMillis()
                + " ms and was interrupted");
    }
}
