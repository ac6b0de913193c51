package dev.inbox.internal.form;

/** How a subscription's claimed rows reach its workers: chosen once, when its form opens. */
public enum Dispatch {
    /**
     * Claim loops keep a buffer of claimed rows filled beside the workers, who take them and claim on
     * their own thread when they run dry while claims come back full.
     */
    BUFFERED,
    /**
     * One worker, which claims for itself once it has worked the rows waiting, as a plain loop does:
     * no claim loop wakes beside it for each claim, which cost two context switches a claim where
     * the claim holds nothing open or carries the last one's settlement.
     */
    LONE_WORKER,
    /**
     * Each worker claims one row and works it on its own thread: where a claim must end in the task
     * that made it (transactions bound to threads), and where claims take one row for several workers,
     * whose hand-over to another thread would cost two wakes a job.
     */
    ON_WORKER;

    /**
     * The dispatch of a form that claims {@code rowsPerClaim} rows for {@code work}: on the worker
     * where {@code threadBound} or claims take one row for several workers; a lone worker where
     * {@code loneWorkerClaims} says it pays; else buffered.
     */
    public static Dispatch of(FormContext.Workload work, int rowsPerClaim, boolean threadBound,
            boolean loneWorkerClaims) {
        if (threadBound || rowsPerClaim == 1 && work.workers() > 1) {
            return ON_WORKER;
        }
        return !work.batchHandler() && work.workers() == 1 && loneWorkerClaims ? LONE_WORKER : BUFFERED;
    }
}
