package dev.inbox.spi;

import java.time.Duration;

/**
 * Where the engine's tasks run: claims, deliveries, lease extensions, ack writes and the listener.
 * Every task is short: it returns once it has nothing to do, and hands over to a new task after
 * {@link #SLICE} when it has, so a server that waits for its threads before it stops (Open
 * Liberty's quiesce) waits for one slice and the deliveries in work, not for a loop. The engine's
 * own daemon threads by default; the resource adapter runs tasks as {@code Work} under the server's
 * {@code WorkManager}.
 */
public interface Threads {
    /** How long a task keeps its thread while it has more to do before it hands over to a new task. */
    Duration SLICE = Duration.ofMillis(100);

    /** Runs {@code task} soon on a thread of the pool. */
    void run(String name, Runnable task);

    /**
     * Runs {@code signal} once {@code delay} has passed, on the timer's own thread: it must return
     * at once (it signals a task, which {@link #run runs} the work).
     */
    void schedule(Duration delay, Runnable signal);
}
