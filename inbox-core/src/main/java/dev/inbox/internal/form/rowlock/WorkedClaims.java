package dev.inbox.internal.form.rowlock;

import dev.inbox.internal.form.Carry;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Row lock claims whose rows are all worked, their acks and commit waiting for the next claim,
 * which sends them before its own statement on the worked claim's connection; those no claim
 * takes in time are committed apart.
 */
final class WorkedClaims extends Carry<ClaimTransaction> {
    /** Guarded by the carry's lock. */
    private final Deque<ClaimTransaction> waiting = new ArrayDeque<>();

    /** @param room how many claims may wait before the one whose last row settled commits itself */
    WorkedClaims(String name, int room) {
        super(name, room, WAIT);
    }

    void park(ClaimTransaction claim) {
        add(() -> waiting.add(claim));
    }

    @Override
    protected int waiting() {
        return waiting.size();
    }

    @Override
    protected ClaimTransaction takeLoad() {
        return waiting.poll();
    }

    @Override
    protected void writeApart(ClaimTransaction claim) {
        claim.settleNow();
    }

    @Override
    protected boolean spent(ClaimTransaction claim) {
        return claim.ended();
    }

    @Override
    protected void fail(ClaimTransaction claim, Exception cause) {
        claim.failCarried(cause);
    }
}
