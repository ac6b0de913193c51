package dev.inbox.engine;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * A shutdown's wait for something other threads end (a claim in progress, a claim loop's run, the
 * deliveries in work, acks waiting for a claim): it looks every 2 ms, which a shutdown can afford, so the hot path that ends
 * it signals nothing.
 */
public final class Waiting {
    private static final long LOOK_MILLIS = 2;

    private Waiting() {}

    /** Waits until {@code done} holds or {@code wait} has passed; true when it holds. */
    public static boolean until(BooleanSupplier done, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(LOOK_MILLIS);
        }
        return true;
    }
}
