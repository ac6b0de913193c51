package dev.inbox.internal.form;

import dev.inbox.ShutdownReport;
import dev.inbox.internal.task.SerialTask;
import dev.inbox.internal.task.Service;
import dev.inbox.spi.Threads;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Settlements that wait for the next claim to carry them in its round trip (acks; a row lock
 * claim's acks and commit), the one way every form lets a claim carry what its workers settled. A
 * claim takes what waits ({@link #take}); what no claim takes is written apart by a writer task:
 * once the subscription goes quiet ({@link #quiet}: no claim may come before the poll), after
 * {@link #WAIT} all the same, when {@code room} loads wait, and at shutdown. A carry that no claim
 * takes from writes each load as it comes ({@link #writeEachAtOnce}).
 *
 * @param <L> what one claim carries: a batch of acks, or one claim's settlement
 */
public abstract class Carry<L> implements Service {
    /**
     * How long a load waits for a claim before the writer writes it, should the subscription not go
     * quiet: long enough that the timer, which looks again while loads keep coming, wakes a few
     * times a second in a drain, and short beside any lease.
     */
    public static final Duration WAIT = Duration.ofMillis(50);

    private final ReentrantLock lock = new ReentrantLock();
    private final String name;
    private final int room;
    /** Zero where no claim carries: the writer is woken for the first load. */
    private final Duration wait;
    private SerialTask writer;
    private Threads threads;
    private boolean closed;
    /** When the first of the loads waiting came (System.nanoTime()). */
    private long firstWaiting;
    /** True while the timer's look at the loads waiting is scheduled. */
    private boolean looking;

    /**
     * @param name the writer task's name
     * @param room how many loads may wait before the one adding writes them itself
     * @param wait how long a load waits for a claim: {@link #WAIT}, or zero where no claim carries
     */
    protected Carry(String name, int room, Duration wait) {
        this.name = name;
        this.room = room;
        this.wait = wait;
    }

    /** A carry that never holds anything: for the forms whose claims carry nothing. */
    public static Carry<Void> none() {
        return new Carry<>("no carry", 1, Duration.ZERO) {
            @Override
            protected int waiting() {
                return 0;
            }

            @Override
            protected Void takeLoad() {
                return null;
            }

            @Override
            protected void writeApart(Void load) {}

            @Override
            protected boolean spent(Void load) {
                return true;
            }

            @Override
            protected void fail(Void load, Exception cause) {}
        };
    }

    /** True where claims take what waits: a carry of {@link #WAIT}, not one that writes each load at once. */
    public final boolean claimsCarry() {
        return !wait.isZero();
    }

    /** How many loads wait; under the carry's lock. */
    protected abstract int waiting();

    /** The next load a claim carries, taken; null when none waits. Under the carry's lock. */
    protected abstract L takeLoad();

    /** Writes a load no claim took, on a connection of its own; each settlement of it is reported. */
    protected abstract void writeApart(L load);

    /** True once a load was written or reported failed: a claim that took it spent it. */
    protected abstract boolean spent(L load);

    /** Reports each settlement of {@code load} failed without writing it. */
    protected abstract void fail(L load, Exception cause);

    /**
     * Adds a settlement to what waits ({@code into}, run under the carry's lock), then wakes the
     * writer or arms its timer for the first load; where {@code room} loads wait (or the carry is
     * closed) the caller writes them itself, so none waits for a thread.
     */
    protected final void add(Runnable into) {
        L full = null;
        boolean signal = false;
        boolean look = false;
        lock.lock();
        try {
            into.run();
            int loads = waiting();
            if (closed || loads >= room) {
                full = takeLoad();
            } else if (loads == 1 && writer != null) {
                if (wait.isZero()) {
                    signal = true;
                } else {
                    firstWaiting = System.nanoTime();
                    look = !looking;
                    looking = true;
                }
            }
        } finally {
            lock.unlock();
        }
        if (signal) {
            writer.signal();
        }
        if (look) {
            lookIn(wait);
        }
        if (full != null) {
            writeApart(full);
        }
    }

    /** What the next claim carries, taken; null when nothing waits. Give it back through {@link #notCarried}. */
    public final L take() {
        lock.lock();
        try {
            return takeLoad();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A claim took {@code load} and failed with {@code e}; where it had not spent the load, the load
     * is written now on the caller's thread. Where the connection failed, the server may have run it
     * without a word back: it is reported failed instead.
     */
    public final void notCarried(L load, Exception e) {
        if (spent(load)) {
            return;
        }
        if (e instanceof SQLException failed && failed.getSQLState() != null && failed.getSQLState().startsWith("08")) {
            fail(load, e);
        } else {
            writeApart(load);
        }
    }

    /** The subscription went quiet: no claim may come before the poll, so the writer writes what waits. */
    public final void quiet() {
        if (wait.isZero()) {
            return; // the writer was woken for the first load
        }
        boolean waits;
        lock.lock();
        try {
            waits = waiting() > 0 && writer != null;
        } finally {
            lock.unlock();
        }
        if (waits) {
            writer.signal();
        }
    }

    @Override
    public final void start(Threads pool) {
        SerialTask task = new SerialTask(pool, name, this::writeOne);
        lock.lock();
        try {
            writer = task;
            threads = pool;
        } finally {
            lock.unlock();
        }
        task.signal(); // what was handed over before it started
    }

    /** Writes what waits, then takes no more: a load handed over after is written at once by its caller. */
    @Override
    public final ShutdownReport stop(long deadline) throws InterruptedException {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
        for (L load = take(); load != null; load = take()) {
            writeApart(load);
        }
        if (writer != null) {
            writer.awaitIdle(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        return ShutdownReport.NONE;
    }

    /** The writer's step: writes one load; true when it wrote, to look again. */
    private boolean writeOne() {
        L load = take();
        if (load == null) {
            return false;
        }
        writeApart(load);
        return true;
    }

    /** The timer's look: the writer writes once the first load has waited {@code wait}; until then it looks again. */
    private void look() {
        long waited;
        boolean again;
        lock.lock();
        try {
            if (waiting() == 0) {
                looking = false;
                return;
            }
            waited = System.nanoTime() - firstWaiting;
            again = waited < wait.toNanos();
            looking = again;
        } finally {
            lock.unlock();
        }
        if (again) {
            lookIn(wait.minusNanos(waited));
        } else {
            writer.signal();
        }
    }

    private void lookIn(Duration delay) {
        try {
            threads.schedule(delay, this::look);
        } catch (RuntimeException e) {
            // No timer (the threads are stopping): the writer writes now.
            lock.lock();
            try {
                looking = false;
            } finally {
                lock.unlock();
            }
            writer.signal();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
