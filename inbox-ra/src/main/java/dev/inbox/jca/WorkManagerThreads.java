package dev.inbox.jca;

import dev.inbox.engine.Threads;
import jakarta.resource.spi.work.Work;
import jakarta.resource.spi.work.WorkException;
import jakarta.resource.spi.work.WorkManager;

/** The engine's claim loops, keepers and workers, run as long-lived {@link Work} under the server's WorkManager. */
final class WorkManagerThreads implements Threads {
    private final WorkManager workManager;

    WorkManagerThreads(WorkManager workManager) {
        this.workManager = workManager;
    }

    @Override
    public void start(String name, Runnable task) {
        try {
            workManager.scheduleWork(new Work() {
                @Override
                public void run() {
                    Thread.currentThread().setName(name);
                    task.run();
                }

                @Override
                public void release() {
                    // The engine's loops end when the broker shuts down, which the adapter's stop() does.
                }

                @Override
                public String toString() {
                    return name;
                }
            }, WorkManager.INDEFINITE, null, null);
        } catch (WorkException e) {
            throw new IllegalStateException("the server's WorkManager refused the task " + name + ": " + e.getMessage(),
                    e);
        }
    }
}
