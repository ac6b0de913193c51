package dev.inbox.engine;

import dev.inbox.internal.task.PlatformThreads;
import dev.inbox.spi.Threads;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** The platform's threads, counting the tasks they were given. */
final class CountingThreads implements Threads {
    private final Threads platform = new PlatformThreads();
    final AtomicInteger tasks = new AtomicInteger();

    @Override
    public void run(String name, Runnable task) {
        tasks.incrementAndGet();
        platform.run(name, task);
    }

    @Override
    public void schedule(Duration delay, Runnable signal) {
        platform.schedule(delay, signal);
    }
}
