package dev.inbox.internal.form;

import dev.inbox.Delivery;
import dev.inbox.InboxException;
import java.sql.Connection;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A claimed row from its claim until it settles. Its token (the lease expiry) moves as the keeper
 * extends it; extension and settlement hold the delivery's monitor, so a settlement never races
 * an extension with a stale token, and a row settles once ({@link #settleOnce}).
 */
public final class InFlight implements Delivery {
    private static final int HANDLER_RUNS = 0;
    private static final int HANDLER_RETURNED = 1;
    private static final int HANDLER_TIMED_OUT = 2;
    private static final VarHandle HANDLER;

    static {
        try {
            HANDLER = MethodHandles.lookup().findVarHandle(InFlight.class, "handler", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String queue;
    private final Object id;
    private final int attempt;
    private final byte[] payload;
    private final Map<String, String> headers;
    private Instant token;
    private boolean settled;
    private volatile Thread worker;
    private volatile Connection transaction;
    private volatile boolean locksDatabase;
    /** Whether its handler runs, returned, or outran the handler timeout: who came first decides. */
    @SuppressWarnings("unused") // through HANDLER
    private volatile int handler;
    private final Claim claim;

    public InFlight(String queue, Object id, int attempt, byte[] payload, Map<String, String> headers, Instant token,
            Claim claim) {
        this.queue = queue;
        this.id = id;
        this.attempt = attempt;
        this.payload = payload;
        this.headers = headers;
        this.token = token;
        this.claim = claim;
    }

    @Override
    public Object id() {
        return id;
    }

    /** A delivery is equal to itself alone: two deliveries of one row (a lease lost and claimed again) differ. */
    @Override
    public boolean equals(Object other) {
        return this == other;
    }

    /**
     * The row id's hash, where the identity hash the sets of deliveries in work asked for took a call
     * into the JVM for each delivery.
     */
    @Override
    public int hashCode() {
        return Objects.hashCode(id);
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public int attempt() {
        return attempt;
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public synchronized Optional<Instant> deadline() {
        return Optional.ofNullable(token);
    }

    @Override
    public Connection connection() {
        Connection c = transaction;
        if (c == null) {
            throw new IllegalStateException("queue " + queue + " is not transactional: declare the subscription"
                    + " transactional to write through the delivery's connection");
        }
        return c;
    }

    /**
     * Lends the delivery's transaction to the handler, or takes it back with null.
     *
     * @param locksWholeDatabase true when the transaction holds the database's write lock (SQLite)
     */
    public void transaction(Connection connection, boolean locksWholeDatabase) {
        transaction = connection;
        locksDatabase = connection != null && locksWholeDatabase;
    }

    /** True while the delivery's transaction holds the whole database's write lock. */
    public boolean locksDatabase() {
        return locksDatabase;
    }

    /** The payload as read from the row; null when the row holds none. */
    public byte[] payload() {
        return payload;
    }

    /** The ownership token; call while holding this delivery's monitor. */
    public Instant token() {
        return token;
    }

    /** Moves the token after a successful extension; call while holding this delivery's monitor. */
    public void token(Instant next) {
        token = next;
    }

    /** Work done under the row's monitor: a settlement, or a lease extension. */
    @FunctionalInterface
    public interface Guarded<E extends Exception> {
        void run() throws E;
    }

    /** A settlement run under the row's monitor, and what it returns. */
    @FunctionalInterface
    public interface Settling<R, E extends Exception> {
        R run() throws E;
    }

    /**
     * Settles the row once: marks it settled and runs {@code settlement} under its monitor, so no
     * lease extension moves its token meanwhile, and returns what it returned; {@code whenSettled},
     * and nothing run, where the row had settled or was released (a shutdown's cut-off, say). The
     * row stays settled when {@code settlement} fails: its claim puts it off, or it returns when its claim ends.
     */
    public <R, E extends Exception> R settleOnce(R whenSettled, Settling<R, E> settlement) throws E {
        synchronized (this) {
            if (settled) {
                return whenSettled;
            }
            settled = true;
            return settlement.run();
        }
    }

    /**
     * Commits the row's settlement inside its delivery's transaction, once: false, and nothing run,
     * where the row had settled (released by shutdown). It counts as settled once {@code commit}
     * returns or throws an {@code InboxException} (the settlement did not take: lost); any other
     * failure leaves it unsettled, for the delivery to settle it apart.
     */
    public boolean commitOnce(Guarded<Exception> commit) throws Exception {
        synchronized (this) {
            if (settled) {
                return false;
            }
            try {
                commit.run();
            } catch (InboxException e) {
                settled = true;
                throw e;
            }
            settled = true;
            return true;
        }
    }

    /** Settles the row unhandled where its claim ran out at {@code now} while it waited: true when it did. */
    public boolean expireIfOut(Instant now) {
        synchronized (this) {
            if (settled || !claim.expired(this, now)) {
                return false;
            }
            settled = true;
            return true;
        }
    }

    /** Runs {@code work} under the row's monitor unless it has settled: a lease extension. */
    public <E extends Exception> void whileUnsettled(Guarded<E> work) throws E {
        synchronized (this) {
            if (!settled) {
                work.run();
            }
        }
    }

    /** True once settled or released. */
    public synchronized boolean isSettled() {
        return settled;
    }

    /** What keeps the row claimed (its lease, the claim's transaction, its lock's session), which settles it. */
    public Claim claim() {
        return claim;
    }

    /** The worker thread working it, or null when none is. */
    public Thread worker() {
        return worker;
    }

    public void worker(Thread thread) {
        worker = thread;
    }

    /**
     * The handler timeout's watch: marks the handler as having outrun its timeout, unless it has
     * returned; true when this call marked it.
     */
    public boolean timeOut() {
        return HANDLER.compareAndSet(this, HANDLER_RUNS, HANDLER_TIMED_OUT);
    }

    /** The handler has returned (or thrown): true when the timeout came first, and its attempt failed. */
    public boolean handlerReturned() {
        return !HANDLER.compareAndSet(this, HANDLER_RUNS, HANDLER_RETURNED) && timedOut();
    }

    /** True once its handler outran the handler timeout: its lease is no longer extended. */
    public boolean timedOut() {
        return handler == HANDLER_TIMED_OUT;
    }

    @Override
    public String toString() {
        return queue + "#" + id + " (attempt " + attempt + ")";
    }
}
