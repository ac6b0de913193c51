package dev.inbox.engine;

import java.lang.System.Logger.Level;
import java.util.function.Supplier;

/**
 * Logs a run of failures of one loop once: the first at WARNING, the repeats at DEBUG, and the
 * recovery at INFO with how many failures it took, so an outage does not flood the log.
 */
final class FailureLog {
    private final System.Logger log;
    private final String what;
    private int failures;
    private long firstAt;

    FailureLog(System.Logger log, String what) {
        this.log = log;
        this.what = what;
    }

    /** A failure; {@code detail} is already free of passwords. */
    synchronized void failed(Supplier<String> detail) {
        if (failures++ == 0) {
            firstAt = System.nanoTime();
            log.log(Level.WARNING, what + " failed; retrying with back-off until it recovers: " + detail.get());
        } else {
            log.log(Level.DEBUG, () -> what + " failed again (" + failures + "): " + detail.get());
        }
    }

    /** A success; logs the recovery when failures came before it. */
    synchronized void succeeded() {
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
