package dev.inbox.engine;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wakes one waiting claim loop; a wake that comes while the loops are busy is kept for the next
 * wait. Once closed, every wait returns at once.
 */
final class WakeSignal {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition woken = lock.newCondition();
    private boolean pending;
    private boolean closed;

    void wake() {
        lock.lock();
        try {
            pending = true;
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until woken or {@code timeout} passes; true when woken. */
    boolean await(Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (!pending && !closed && nanos > 0) {
                nanos = woken.awaitNanos(nanos);
            }
            boolean wasWoken = pending || closed;
            pending = false;
            return wasWoken;
        } finally {
            lock.unlock();
        }
    }

    /** Ends every wait, now and later. */
    void close() {
        lock.lock();
        try {
            closed = true;
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Forgets a pending wake: the claim about to run finds what it announced. */
    void clear() {
        lock.lock();
        try {
            pending = false;
        } finally {
            lock.unlock();
        }
    }

    static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
