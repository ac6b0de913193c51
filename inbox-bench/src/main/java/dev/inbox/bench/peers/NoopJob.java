package dev.inbox.bench.peers;

/**
 * The job JobRunr runs: a static method it finds again by name from its stored job, with the
 * job's number as its one argument. Public, as JobRunr calls it by reflection.
 */
public final class NoopJob {
    private NoopJob() {}

    /** Does nothing: the benchmark measures the scheduler, not the job. */
    public static void run(Integer n) {
        // nothing to do
    }
}
