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
 * more threads than the deliveries in work. Once {@linkplain #stop() stopped}, every signal still
 * scheduled is cancelled and new ones are dropped: a server whose executor is gone (Open Liberty
 * after the adapter's stop) is never handed a task by a timer.
 */
final class WorkManagerThreads implements Threads {
    private static final System.Logger LOG = System.getLogger(WorkManagerThreads.class.getName());

    private final WorkManager workManager;
    private final Timer timer;
    private volatile boolean stopped;

    WorkManagerThreads(WorkManager workManager, Timer timer) {
        this.workManager = workManager;
        this.timer = timer;
    }

    /** @throws IllegalStateException when the adapter has stopped, or the server refuses the task */
    @Override
    public void run(String name, Runnable task) {
        if (stopped) {
            throw new IllegalStateException("the Inbox resource adapter has stopped: task " + name + " does not run");
        }
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
                    // Open Liberty calls it after the adapter's stop, which has drained every delivery by then.
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

    /** Drops {@code signal} once the adapter has stopped. */
    @Override
    public void schedule(Duration delay, Runnable signal) {
        if (stopped) {
            LOG.log(Level.DEBUG, "the Inbox resource adapter has stopped; a timed signal is dropped");
            return;
        }
        try {
            timer.schedule(new TimerTask() {
                @Override
                public void run() {
                    if (stopped) {
                        return;
                    }
                    try {
                        signal.run();
                    } catch (RuntimeException e) {
                        // Caught, since a Timer whose task throws stops for good.
                        if (!stopped) {
                            LOG.log(Level.ERROR, "an Inbox timed signal failed", e);
                        }
                    }
                }
            }, Math.max(0, delay.toMillis()));
        } catch (IllegalStateException e) {
            // The server cancelled the timer: it is stopping the adapter.
            LOG.log(Level.DEBUG, "Inbox timer cancelled; a timed signal is dropped");
        }
    }

    /** Cancels every signal still scheduled and refuses new tasks: the adapter has stopped. */
    void stop() {
        stopped = true;
        timer.cancel(); // discards every signal still scheduled
    }
}
