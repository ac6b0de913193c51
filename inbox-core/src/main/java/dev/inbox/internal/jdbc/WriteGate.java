package dev.inbox.internal.jdbc;

import java.lang.ref.WeakReference;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The engine's writers to a database that takes one writer at a time (SQLite) queue here, in the
 * process, instead of colliding on the database's lock: a writer that finds the lock taken waits
 * in SQLite's busy handler, which sleeps 1 to 100 ms between tries, where here it is woken as the
 * last writer is done. One gate per database file, shared by the brokers of the process.
 */
public final class WriteGate {
    /** No longer than SQLite's busy timeout: past it a writer goes on and meets the database's lock. */
    private static final long WAIT_MILLIS = 10_000;
    /** Held weakly: a gate lives as long as a broker of its database holds it, so the map does not grow. */
    private static final Map<String, WeakReference<WriteGate>> GATES = new ConcurrentHashMap<>();

    private static final System.Logger LOG = System.getLogger(WriteGate.class.getName());

    /** Fair: a claim loop that writes again at once must not pass an ack writer that waits. */
    private final Lock lock = new Lock();

    /** The gate's lock, which names the thread whose turn it is. */
    private static final class Lock extends ReentrantLock {
        Lock() {
            super(true);
        }

        String holder() {
            Thread owner = getOwner();
            return owner == null ? "none" : owner.getName();
        }
    }

    public static WriteGate of(String database) {
        GATES.values().removeIf(gate -> gate.get() == null); // databases no broker uses any more
        WriteGate[] held = new WriteGate[1];
        GATES.compute(String.valueOf(database), (d, gate) -> {
            held[0] = gate == null ? null : gate.get();
            if (held[0] == null) {
                held[0] = new WriteGate();
                return new WeakReference<>(held[0]);
            }
            return gate;
        });
        return held[0];
    }

    /** The databases whose gate is still held, for tests. */
    public static Set<String> databases() {
        return Set.copyOf(GATES.keySet());
    }

    /** Runs {@code work} once it is this writer's turn, or after the wait SQLite itself would make. */
    public <R> R run(JdbcTransaction.Work<R> work) throws SQLException {
        try (Turn turn = take()) {
            return work.run();
        }
    }

    /**
     * Waits for this writer's turn (or for the wait SQLite itself would make) and keeps it until
     * the turn is closed, on the same thread: for a writer that holds the database's lock across
     * more than one call, a delivery's transaction. The thread's own writes meanwhile pass.
     */
    Turn take() {
        boolean locked;
        try {
            locked = lock.tryLock(WAIT_MILLIS, TimeUnit.MILLISECONDS);
            if (!locked) {
                LOG.log(System.Logger.Level.WARNING, "a writer to the SQLite database waited {0} ms for its turn,"
                        + " which thread {1} holds, and goes on to meet the database''s lock", WAIT_MILLIS,
                        lock.holder());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            locked = false;
        }
        return locked ? new Turn(lock) : Turn.NONE;
    }

    /** A writer's turn; closing it again does nothing. */
    public static final class Turn implements AutoCloseable {
        /** The turn where writers take none. */
        static final Turn NONE = new Turn(null);

        private ReentrantLock held;

        private Turn(ReentrantLock held) {
            this.held = held;
        }

        @Override
        public void close() {
            if (held != null) {
                ReentrantLock lock = held;
                held = null;
                lock.unlock();
            }
        }
    }
}
