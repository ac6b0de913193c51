package dev.inbox.internal.task;

import dev.inbox.ShutdownReport;
import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Starts services all or none, and stops them in parallel under one deadline. A stop that has not
 * ended by the deadline (plus {@link #GRACE}) is given up: what it holds ends with the pool.
 */
public final class Services {
    private static final System.Logger LOG = System.getLogger(Services.class.getName());
    /** How long past the deadline a stop may take to write down what it settled. */
    public static final Duration GRACE = Duration.ofSeconds(2);

    private Services() {}

    /**
     * Starts each of {@code services} in order; where one fails, stops those started (with
     * {@code stopWait} to do it) and throws what failed.
     */
    public static void startAll(List<? extends Service> services, Threads threads, Duration stopWait) {
        List<Service> started = new ArrayList<>();
        for (Service service : services) {
            try {
                service.start(threads);
            } catch (RuntimeException | Error e) {
                stopAll(started, threads, System.nanoTime() + stopWait.toNanos());
                throw e;
            }
            started.add(service);
        }
    }

    /**
     * Stops every one of {@code services} at once, each on a thread of its own, and waits for them
     * until {@code deadline} ({@link System#nanoTime()}) plus {@link #GRACE}; returns what they
     * released. A stop still running then is logged and given up.
     */
    public static ShutdownReport stopAll(List<? extends Service> services, Threads threads, long deadline) {
        List<CompletableFuture<ShutdownReport>> stops = new ArrayList<>();
        for (Service service : services) {
            CompletableFuture<ShutdownReport> stop = new CompletableFuture<>();
            Runnable task = () -> {
                try {
                    stop.complete(service.stop(deadline));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    stop.completeExceptionally(e);
                } catch (RuntimeException | Error e) {
                    stop.completeExceptionally(e);
                }
            };
            try {
                threads.run("inbox-stop", task);
            } catch (RuntimeException e) {
                task.run(); // no thread to spare: stopped here, in turn
            }
            stops.add(stop);
        }
        ShutdownReport report = ShutdownReport.NONE;
        long until = deadline + GRACE.toNanos();
        for (int i = 0; i < stops.size(); i++) {
            try {
                report = report.plus(stops.get(i).get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                LOG.log(Level.WARNING, "{0} did not stop by the deadline; what it holds ends with its connections",
                        services.get(i));
            } catch (ExecutionException e) {
                LOG.log(Level.WARNING, "stopping " + services.get(i) + " failed", e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return report;
            }
        }
        return report;
    }
}
