package dev.inbox.jca;

import dev.inbox.spi.Threads;
import jakarta.resource.spi.work.Work;
import jakarta.resource.spi.work.WorkException;
import jakarta.resource.spi.work.WorkManager;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Timer;
import java.util.TimerTask;

/**
 * The engine's tasks as short {@link Work} under the server's WorkManager, and its timed signals
 * on a timer of the bootstrap context. No task outlives a slice of work or a delivery, so a server
 * that waits for its threads before it stops waits for those alone, and the WorkManager needs no
 * more threads than the deliveries in work.
 */
final class WorkManagerThreads implements Threads {
    private static final System.Logger LOG = System.getLogger(WorkManagerThreads.class.getName());

    private final WorkManager workManager;
    private final Timer timer;

    WorkManagerThreads(WorkManager workManager, Timer timer) {
        this.workManager = workManager;
        this.timer = timer;
    }

    @Override
    public void run(String name, Runnable task) {
        try {
            workManager.scheduleWork(new Work() {
                @Override
                public void run() {
                    Thread thread = Thread.currentThread();
                    String serverName = thread.getName();
                    thread.setName(name);
                    try {
                        task.run();
                    } finally {
                        thread.setName(serverName);
                    }
                }

                @Override
                public void release() {
                    // Every task returns within a slice of work or a delivery; a delivery ends at the drain timeout.
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

    @Override
    public void schedule(Duration delay, Runnable signal) {
        try {
            timer.schedule(new TimerTask() {
                @Override
                public void run() {
                    try {
                        signal.run();
                    } catch (RuntimeException e) {
                        // A Timer whose task throws stops for good.
                        LOG.log(Level.ERROR, "an Inbox timed signal failed", e);
                    }
                }
            }, Math.max(0, delay.toMillis()));
        } catch (IllegalStateException e) {
            // The adapter stopped and cancelled its timer: nothing runs any more.
            LOG.log(Level.DEBUG, "Inbox timer cancelled; a timed signal is dropped");
        }
    }

    /** Stops the timer: the adapter has stopped. */
    void stop() {
        timer.cancel();
    }
}
