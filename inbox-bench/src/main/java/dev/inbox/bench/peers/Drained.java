package dev.inbox.bench.peers;

import dev.inbox.bench.meter.Meter;

/**
 * A peer's timed drain, with how long after its start its first job completed: a peer's clock
 * includes its start (JobRunr first looks for work a second after it). NaN for the engine, whose
 * clock starts as it claims.
 */
public record Drained(Meter.Measured measured, double firstMs) {

    /** The rate once jobs flow: the jobs after the first over the time after it. Sizes the runs. */
    public double flowingJobsPerS(int jobs) {
        double seconds = jobs / measured.jobsPerS() - firstMs / 1e3;
        return seconds > 0 ? (jobs - 1) / seconds : measured.jobsPerS();
    }
}
