package dev.inbox.internal.task;

import dev.inbox.spi.Threads;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A step run on the engine's {@link Threads} each time it is signalled, never twice at once: a
 * signal while it runs makes it run once more after, and a step that returns true runs again at
 * once. It holds no thread while idle, and hands over to a new task after {@link Threads#SLICE}.
 */
public final class SerialTask {
    private static final System.Logger LOG = System.getLogger(SerialTask.class.getName());
    private static final int IDLE = 0;
    private static final int RUNNING = 1;
    private static final int AGAIN = 2;

    private final Threads threads;
    private final String name;
    private final BooleanSupplier step;
    private final AtomicInteger state = new AtomicInteger(IDLE);
    /** When the task was handed to its threads and has not started yet (System.nanoTime()); 0 when not waiting. */
    private volatile long queuedAt;

    /** {@code step} returns true when it has more to do at once. */
    public SerialTask(Threads threads, String name, BooleanSupplier step) {
        this.threads = threads;
        this.name = name;
        this.step = step;
    }

    /** Runs the step soon, or once more after the run in progress. */
    public void signal() {
        int seen;
        do {
            seen = state.get();
            if (seen == AGAIN) {
                return;
            }
        } while (!state.compareAndSet(seen, seen == IDLE ? RUNNING : AGAIN));
        if (seen == IDLE) {
            submit();
        }
    }

    /**
     * Runs the step soon for the first time: as {@link #signal()}, but where the threads refuse the
     * task it throws what they threw, and the task stays idle.
     */
    public void start() {
        if (!state.compareAndSet(IDLE, RUNNING)) {
            return;
        }
        queuedAt = System.nanoTime();
        try {
            threads.run(name, this::runSteps);
        } catch (RuntimeException e) {
            queuedAt = 0;
            state.set(IDLE);
            throw e;
        }
    }

    /**
     * Runs the step on the calling thread when no run is in progress or due, else as
     * {@link #signal()}: for a caller that is itself one of the engine's tasks, so the step starts
     * without waiting for a thread.
     */
    public void runHere() {
        if (state.compareAndSet(IDLE, RUNNING)) {
            runSteps();
        } else {
            signal();
        }
    }

    /** True when no run is in progress or due. */
    public boolean idle() {
        return state.get() == IDLE;
    }

    /** Waits until {@link #idle()} or {@code timeout} passes; true when idle. */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        return Waiting.until(this::idle, timeout);
    }

    /** How long the task has waited for a thread at {@code now} (System.nanoTime()); 0 when it is not waiting. */
    public long waitingNanos(long now) {
        long since = queuedAt;
        return since == 0 ? 0 : now - since;
    }

    private void submit() {
        queuedAt = System.nanoTime();
        try {
            threads.run(name, this::runSteps);
        } catch (RuntimeException e) {
            queuedAt = 0;
            state.set(IDLE);
            LOG.log(Level.ERROR, "task " + name + " could not start; it starts when signalled again", e);
        }
    }

    private void runSteps() {
        queuedAt = 0;
        long end = System.nanoTime() + Threads.SLICE.toNanos();
        while (true) {
            boolean again;
            try {
                again = step.getAsBoolean();
            } catch (Throwable e) {
                LOG.log(Level.ERROR, "task " + name + " failed; it runs again when signalled", e);
                again = false;
            }
            Thread.interrupted(); // an interrupt meant for this step does not reach the next
            if (!again && state.compareAndSet(RUNNING, IDLE)) {
                return;
            }
            state.set(RUNNING);
            if (System.nanoTime() - end >= 0) {
                submit();
                return;
            }
        }
    }
}
