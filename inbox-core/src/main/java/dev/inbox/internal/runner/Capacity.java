package dev.inbox.internal.runner;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one subscription may hold: room for rows (units for a batch handler) in work or waiting in
 * the buffer, and places for the claims that hold rows at once (a claim that keeps a connection
 * until its rows settle counts against the pool). A claim starts when at least {@code claimAt} of
 * the room is free and takes up to {@code mostPerClaim} of it; a claim loop that finds too little
 * ends, and what frees enough signals it ({@link #roomNowEnough}).
 */
final class Capacity {
    private final Semaphore room;
    private final Semaphore claims;
    private final int claimAt;
    private final int mostPerClaim;
    /** True when a claim loop ended for want of room or of a claim's place: what frees them signals it. */
    private final AtomicBoolean wanted = new AtomicBoolean();

    Capacity(int held, int claimAt, int mostPerClaim, int claimsAtOnce) {
        this.room = new Semaphore(held);
        this.claims = new Semaphore(claimsAtOnce);
        this.claimAt = claimAt;
        this.mostPerClaim = mostPerClaim;
    }

    /**
     * The room and a claim's place for the next claim, taken: the room taken, up to
     * {@code mostPerClaim}; 0, with nothing taken, where too little is free.
     */
    int take() {
        if (!room.tryAcquire(claimAt)) {
            return 0;
        }
        int taken = claimAt;
        while (taken < mostPerClaim && room.tryAcquire()) {
            taken++;
        }
        if (!claims.tryAcquire()) {
            room.release(taken);
            return 0;
        }
        return taken;
    }

    /**
     * Ends a claim loop's step for want of room or of a claim's place: what frees them signals it.
     * True (claim again at once) when they came free meanwhile, so no signal is missed.
     */
    boolean awaitRoom() {
        wanted.set(true);
        return canClaim();
    }

    /** True once for a loop that ended wanting room, when enough of it is free: the caller wakes a loop. */
    boolean roomNowEnough() {
        return wanted.get() && canClaim() && wanted.compareAndSet(true, false);
    }

    /** True where a claim could start now. */
    boolean canClaim() {
        return room.availablePermits() >= claimAt && claims.availablePermits() > 0;
    }

    /** The room a claim took and did not fill. */
    void unused(int taken) {
        room.release(taken);
    }

    /** A claim that holds no rows gives back its room and its place. */
    void giveBack(int taken) {
        room.release(taken);
        claims.release();
    }

    /** A unit of work is done: its room is free. */
    void unitDone() {
        room.release();
    }

    /** The place among the claims of one that holds {@code rows} rows, given back when its last is done. */
    Hold hold(int rows) {
        return new Hold(rows);
    }

    /** A claim that holds rows: it frees its place among the claims when its last row is done. */
    final class Hold {
        private final AtomicInteger open;

        private Hold(int rows) {
            open = new AtomicInteger(rows);
        }

        void done(int rows) {
            if (open.addAndGet(-rows) == 0) {
                claims.release();
            }
        }
    }
}
