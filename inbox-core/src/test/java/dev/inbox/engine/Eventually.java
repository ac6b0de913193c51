package dev.inbox.engine;

import dev.inbox.internal.task.Waiting;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** The engine tests' wait for what other threads do: the engine's own wait, failing as an assertion. */
public final class Eventually {
    private Eventually() {}

    /** Waits until {@code condition} holds, failing with {@code message} after {@code timeout}. */
    public static void await(BooleanSupplier condition, Duration timeout, Supplier<String> message) {
        try {
            if (!Waiting.until(condition, timeout, Duration.ofMillis(10))) {
                throw new AssertionError("after " + timeout.toMillis() + " ms: " + message.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        }
    }
}
