package dev.inbox.internal.task;

import dev.inbox.ShutdownReport;
import dev.inbox.spi.Threads;

/**
 * A part of the engine that runs: a subscription's claim loops and workers, a lease keeper, an ack
 * writer, the LISTEN connection, the recurring jobs. Started once on the engine's threads, stopped
 * once under a deadline, asked for its health while it runs. The broker starts its services all or
 * none, and stops them in parallel under the one deadline its caller gave ({@link Services}).
 */
public interface Service {

    /**
     * Starts it on {@code threads}, or throws: then nothing of it runs, and the broker stops the
     * services started before it.
     */
    void start(Threads threads);

    /**
     * Stops it: at once where it holds nothing, else as far as it gets by {@code deadline}
     * ({@link System#nanoTime()}), when what is left is given up. Returns what it released.
     */
    default ShutdownReport stop(long deadline) throws InterruptedException {
        return ShutdownReport.NONE;
    }

    /**
     * What is wrong with it at {@code now} ({@link System#nanoTime()}), for health checks: a run of
     * failures, or a step late by more than {@code stuckNanos}.
     */
    default Health health(long now, long stuckNanos) {
        return Health.OK;
    }

    /**
     * What is wrong with a service.
     *
     * @param down  what keeps it from working (a run of failures), for readiness; null when nothing does
     * @param stuck what has not come round in time, for liveness; null when nothing is late
     */
    record Health(String down, String stuck) {
        public static final Health OK = new Health(null, null);
    }
}
