package dev.inbox.internal.runner;

import dev.inbox.internal.form.Dispatch;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.jdbc.Redaction;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How a subscription's claimed rows reach its workers, as its form's {@link Dispatch} says, chosen
 * once: what a claim loop's claim does with its rows, who claims next as units are done, and what
 * a worker run dry does.
 */
abstract sealed class Handover {
    private static final System.Logger LOG = System.getLogger(Handover.class.getName());

    final ClaimLoops loops;
    final Workers workers;
    final Capacity capacity;
    /** True when the last claim took all it asked for: more rows may be due, so a worker run dry claims. */
    volatile boolean moreDue;

    private Handover(ClaimLoops loops, Workers workers, Capacity capacity) {
        this.loops = loops;
        this.workers = workers;
        this.capacity = capacity;
    }

    static Handover of(Dispatch dispatch, ClaimLoops loops, Workers workers, Capacity capacity, int mostWorkers,
            boolean batches, Deliverer<?> deliverer) {
        return switch (dispatch) {
            case BUFFERED -> new Buffered(loops, workers, capacity, mostWorkers, batches);
            case LONE_WORKER -> new LoneWorker(loops, workers, capacity, batches);
            case ON_WORKER -> new OnWorker(loops, workers, capacity, deliverer);
        };
    }

    /**
     * The claim of loop {@code loop}, which took {@code taken} of the room, for {@code wanted} rows:
     * the rows it claimed, handed to the workers or worked here. A claim that took none gives the
     * room back.
     */
    abstract List<InFlight> claim(int loop, int taken, int wanted) throws Exception;

    /** After a claim that took rows: true when its loop claims again at once. */
    boolean claimAgain() {
        return true;
    }

    /** A unit is done and its room free, on the worker's thread. */
    void unitDone() {}

    /** A worker's buffer is empty: it claims here while claims come back full. True when it did. */
    boolean whenDry() {
        if (moreDue && capacity.canClaim()) {
            loops.runHere();
            return true;
        }
        return false;
    }

    /** Claims still running, which a stop waits for before it drains. */
    int claimsInProgress() {
        return loops.running();
    }

    /** Gives back the room of a claim that holds no rows: a loop that ended for want of it claims. */
    final void giveBack(int taken) {
        capacity.giveBack(taken);
        roomFreed();
    }

    /** Room or a claim's place came free: a loop that ended for want of them claims once there is enough. */
    final void roomFreed() {
        if (capacity.roomNowEnough()) {
            loops.signal();
        }
    }

    /**
     * Claim loops fill the buffer beside the workers. Where no unit is left (the worker would idle)
     * or other workers go on with the buffer, the next claim runs on the worker that freed its room
     * instead of waiting for a thread of its own; where this worker alone works the units waiting, a
     * loop claims on its own thread beside it, so those units do not sit out the claim's round trip.
     */
    static sealed class Buffered extends Handover {
        private final int mostWorkers;
        private final boolean batches;

        Buffered(ClaimLoops loops, Workers workers, Capacity capacity, int mostWorkers, boolean batches) {
            super(loops, workers, capacity);
            this.mostWorkers = mostWorkers;
            this.batches = batches;
        }

        @Override
        final List<InFlight> claim(int loop, int taken, int wanted) throws SQLException {
            List<InFlight> rows = loops.claim(loop, wanted);
            if (rows.isEmpty()) {
                giveBack(taken);
            } else {
                if (!batches) {
                    capacity.unused(taken - rows.size());
                }
                workers.dispatch(rows, capacity.hold(rows.size()));
            }
            return rows;
        }

        @Override
        void unitDone() {
            if (capacity.roomNowEnough()) {
                if (workers.dry() || workers.running() > 1 || mostWorkers > 1 && workers.keepUp()) {
                    loops.runHere();
                } else {
                    loops.signal();
                }
            }
        }
    }

    /**
     * One worker claims for itself once it has worked the units waiting: a loop claiming on beside
     * it would take its claims over for good (run dry, the worker would find the loop running).
     */
    static final class LoneWorker extends Buffered {
        LoneWorker(ClaimLoops loops, Workers workers, Capacity capacity, boolean batches) {
            super(loops, workers, capacity, 1, batches);
        }

        @Override
        boolean claimAgain() {
            return !(moreDue && workers.running() > 0);
        }

        @Override
        void unitDone() {
            if (workers.dry()) { // it claims once it has worked these: the last of them finds the buffer empty
                super.unitDone();
            }
        }
    }

    /**
     * Each claim loop is a worker: it enters the application's context once, claims one row there,
     * and works it on the same thread in the same context entry (entered again, it could suspend the
     * transaction the claim began). Nothing waits in the buffer.
     */
    static final class OnWorker extends Handover {
        private final Deliverer<?> deliverer;
        /** Claims in progress: a stop waits for them, not for the deliveries their loops then work. */
        private final AtomicInteger claiming = new AtomicInteger();

        OnWorker(ClaimLoops loops, Workers workers, Capacity capacity, Deliverer<?> deliverer) {
            super(loops, workers, capacity);
            this.deliverer = deliverer;
        }

        @Override
        List<InFlight> claim(int loop, int taken, int wanted) throws Exception {
            ClaimHere here = new ClaimHere(loop, taken);
            claiming.incrementAndGet();
            try {
                deliverer.inHandlerContext(here);
            } catch (RuntimeException e) {
                if (here.rows.isEmpty()) {
                    throw e;
                }
                // The rows were worked and their room given back: the claim itself went well.
                LOG.log(Level.WARNING, "the application's context failed after a delivery", Redaction.redact(e));
            } finally {
                if (!here.claimed) {
                    claiming.decrementAndGet();
                }
            }
            if (here.failure != null) {
                throw here.failure;
            }
            if (here.rows.isEmpty()) {
                giveBack(taken);
            }
            return here.rows;
        }

        @Override
        int claimsInProgress() {
            return claiming.get();
        }

        /** One claim and its work, inside the application's context. */
        private final class ClaimHere implements Runnable {
            private final int loop;
            private final int taken;
            private List<InFlight> rows = List.of();
            private Exception failure;
            /** True once the claim has returned: its rows are in work, or it took none. */
            private boolean claimed;

            ClaimHere(int loop, int taken) {
                this.loop = loop;
                this.taken = taken;
            }

            @Override
            public void run() {
                try {
                    rows = loops.claim(loop, 1);
                    workers.holding(rows);
                } catch (SQLException | RuntimeException e) {
                    failure = e;
                    return;
                } finally {
                    claimed = true;
                    claiming.decrementAndGet();
                }
                if (!rows.isEmpty()) {
                    workers.workHere(rows, taken);
                    roomFreed();
                }
            }
        }
    }
}
