package dev.inbox.internal.runner;

import java.time.Duration;

/**
 * How long a subscription's unit of work takes on average, from a worker taking it to its
 * settlement handed over: whether the workers running get through the units waiting soon enough
 * that waking another thread for them would cost more than it saves. A wake costs a context switch
 * on each side, tens of microseconds of CPU on a virtual machine, where a handler that acks at once
 * takes a few; a handler of a millisecond or more is worth a thread of its own at once.
 */
final class WorkPace {
    /** The work that may wait per running worker before another is woken for it. */
    static final Duration BUDGET = Duration.ofMillis(1);
    private static final long BUDGET_NANOS = BUDGET.toNanos();
    /** Until a unit has been worked the pace is unknown, and a worker is woken for every unit waiting. */
    private static final long UNKNOWN = -1;

    private volatile long meanNanos = UNKNOWN;

    /** Counts a unit worked in {@code nanos}: a moving average that follows the last dozen or so. */
    void worked(long nanos) {
        long mean = meanNanos;
        // Racing workers may lose an update now and then: the average only steers how many threads run.
        meanNanos = mean == UNKNOWN ? nanos : mean + (nanos - mean) / 8;
    }

    /** True when {@code running} workers get through {@code units} more units within the budget. */
    boolean keepsUp(int units, int running) {
        long mean = meanNanos;
        return mean != UNKNOWN && running > 0 && units * mean <= BUDGET_NANOS * running;
    }
}
