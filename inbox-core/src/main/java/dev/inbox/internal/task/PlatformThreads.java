package dev.inbox.internal.task;

import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The engine's default threads: a broker's tasks on daemon platform threads that end after a while
 * idle, and a timer thread.
 */
public final class PlatformThreads implements Threads {
    private static final System.Logger LOG = System.getLogger(PlatformThreads.class.getName());

    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), daemon("inbox-pool"));
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemon("inbox-timer"));

    public PlatformThreads() {
        timer.setKeepAliveTime(10, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        timer.setRemoveOnCancelPolicy(true);
    }

    @Override
    public void run(String name, Runnable task) {
        pool.execute(() -> {
            // Named after its task for thread dumps; renamed only when the task differs, since naming
            // the current thread is a system call (a profile of a drain found two per task there).
            // An idle thread keeps its last task's name and waits in the pool's queue.
            Thread thread = Thread.currentThread();
            if (!thread.getName().equals(name)) {
                thread.setName(name);
            }
            try {
                task.run();
            } finally {
                Thread.interrupted(); // a delivery cut off at shutdown may leave it set
            }
        });
    }

    @Override
    public void schedule(Duration delay, Runnable signal) {
        timer.schedule(() -> {
            try {
                signal.run();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "a timed signal failed", e);
            }
        }, delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    private static ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
