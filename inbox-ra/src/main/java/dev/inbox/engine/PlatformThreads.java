package dev.inbox.engine;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** A broker's tasks on daemon platform threads that end after a while idle, and a timer thread. */
final class PlatformThreads implements Threads {
    private static final System.Logger LOG = System.getLogger(PlatformThreads.class.getName());

    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), daemon("inbox-pool"));
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemon("inbox-timer"));

    PlatformThreads() {
        timer.setKeepAliveTime(10, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        timer.setRemoveOnCancelPolicy(true);
    }

    @Override
    public void run(String name, Runnable task) {
        pool.execute(() -> {
            Thread thread = Thread.currentThread();
            thread.setName(name);
            try {
                task.run();
            } finally {
                Thread.interrupted(); // a delivery cut off at shutdown may leave it set
                thread.setName("inbox-pool");
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
