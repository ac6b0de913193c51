package dev.inbox.internal.task;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Logs a run of failures of one loop once: the first at WARNING, the repeats at DEBUG, and the
 * recovery at INFO with how many failures it took, so an outage does not flood the log.
 * Engine-internal; public for the claim forms.
 */
public final class FailureLog {
    private final System.Logger log;
    private final String what;
    private final String consequence;
    /** Read without the lock on the way to a success, which is the common case on a hot path. */
    private volatile int failures;
    private long firstAt;
    private String lastDetail;

    /**
     * A run of failures not yet followed by a success, for health checks.
     *
     * @param what     the loop that fails ({@code claiming from table refund_jobs})
     * @param failures how many in a row
     * @param lasting  since the first of them
     * @param detail   the last one's message, free of passwords
     */
    public record Outage(String what, int failures, Duration lasting, String detail) {
        @Override
        public String toString() {
            return what + " has failed " + failures + " time" + (failures == 1 ? "" : "s") + " over "
                    + lasting.toSeconds() + " s: " + detail;
        }
    }

    /** For a loop that retries with back-off. */
    public FailureLog(System.Logger log, String what) {
        this(log, what, "retrying with back-off until it recovers");
    }

    /** @param consequence what follows from a failure, for the first one's warning */
    public FailureLog(System.Logger log, String what, String consequence) {
        this.log = log;
        this.what = what;
        this.consequence = consequence;
    }

    /** A failure; {@code detail} is already free of passwords. */
    public synchronized void failed(Supplier<String> detail) {
        int count = ++failures;
        lastDetail = detail.get();
        if (count == 1) {
            firstAt = System.nanoTime();
            log.log(Level.WARNING, what + " failed; " + consequence + ": " + lastDetail);
        } else {
            String text = lastDetail;
            log.log(Level.DEBUG, () -> what + " failed again (" + count + "): " + text);
        }
    }

    /** The outage in progress; null once the last attempt succeeded. */
    public synchronized Outage outage() {
        return failures == 0 ? null
                : new Outage(what, failures, Duration.ofNanos(System.nanoTime() - firstAt), lastDetail);
    }

    /** A success; logs the recovery when failures came before it. */
    public void succeeded() {
        if (failures > 0) {
            recovered();
        }
    }

    private synchronized void recovered() {
        if (failures > 0) {
            long ms = (System.nanoTime() - firstAt) / 1_000_000;
            log.log(Level.INFO, what + " recovered after " + failures + " failure" + (failures == 1 ? "" : "s")
                    + " over " + ms + " ms");
            failures = 0;
        }
    }

    synchronized int failures() {
        return failures;
    }
}
