package dev.inbox.internal.runner;

import java.time.Duration;

/** How long since a {@link System#nanoTime()} reading, for the listener: never negative. */
final class Elapsed {
    private Elapsed() {}

    /**
     * The time since {@code begun}; zero where the clock read earlier (on a virtual machine whose
     * cores' counters are not quite in step, a thread moved between them can see it so).
     */
    static Duration since(long begun) {
        return Duration.ofNanos(Math.max(0, System.nanoTime() - begun));
    }
}
