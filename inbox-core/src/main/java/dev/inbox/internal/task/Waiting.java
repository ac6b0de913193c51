package dev.inbox.internal.task;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * A wait for something other threads end (a claim in progress, a claim loop's run, the deliveries
 * in work, acks waiting for a claim): it looks again and again, so the hot path that ends it
 * signals nothing. A shutdown can afford to look every 2 ms.
 */
public final class Waiting {
    private static final Duration LOOK = Duration.ofMillis(2);

    private Waiting() {}

    /** Waits until {@code done} holds or {@code wait} has passed, looking every 2 ms; true when it holds. */
    public static boolean until(BooleanSupplier done, Duration wait) throws InterruptedException {
        return until(done, wait, LOOK);
    }

    /** Waits until {@code done} holds or {@code wait} has passed, looking every {@code look}; true when it holds. */
    public static boolean until(BooleanSupplier done, Duration wait, Duration look) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(look.toMillis());
        }
        return true;
    }
}
