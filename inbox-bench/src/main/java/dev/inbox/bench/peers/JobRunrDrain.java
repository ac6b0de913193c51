package dev.inbox.bench.peers;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jobrunr.jobs.Job;
import org.jobrunr.jobs.filters.ApplyStateFilter;
import org.jobrunr.jobs.mappers.JobMapper;
import org.jobrunr.jobs.states.FailedState;
import org.jobrunr.jobs.states.JobState;
import org.jobrunr.jobs.states.SucceededState;
import org.jobrunr.scheduling.JobScheduler;
import org.jobrunr.server.BackgroundJobServer;
import org.jobrunr.server.BackgroundJobServerConfiguration;
import org.jobrunr.server.JobActivator;
import org.jobrunr.storage.StorageProvider;
import org.jobrunr.storage.sql.common.DefaultSqlStorageProvider;
import org.jobrunr.storage.sql.mariadb.MariaDbStorageProvider;
import org.jobrunr.storage.sql.postgres.PostgresStorageProvider;
import org.jobrunr.utils.mapper.JsonMapper;
import org.jobrunr.utils.mapper.jackson.JacksonJsonMapper;

/**
 * Drains enqueued jobs of a no-op static method through a JobRunr {@code BackgroundJobServer}
 * with {@code workers} workers. Its storage provider creates its tables (and migrates them) on
 * first use; each run empties the jobs and servers tables, enqueues the jobs through
 * {@code JobScheduler.enqueue(Stream, ..)} (batched inserts) with no server running, and the
 * clock runs from {@code BackgroundJobServer.start()} until the last job's SUCCEEDED state has
 * been saved.
 */
public final class JobRunrDrain {
    public static final String NAME = "jobrunr";

    /**
     * The shortest poll interval JobRunr 8 accepts on an SQL database (shorter throws "The smallest
     * supported pollInterval is 5 seconds"). A started server first looks for work after a fifth
     * of it (1 s); from then on a worker that finishes a job onboards the next at once, so the
     * interval only delays the start of a run.
     */
    private static final Duration POLL_INTERVAL = Duration.ofSeconds(5);

    private JobRunrDrain() {}

    /** JobRunr ships storage providers for both. */
    public static boolean serves(String db) {
        return db.equals("postgres") || db.equals("mariadb");
    }

    public static Drained run(String db, String url, int workers, int jobs) throws Exception {
        String what = NAME + " on " + db + ", " + workers + " workers";
        Completions completions = new Completions(what, jobs);
        JsonMapper json = new JacksonJsonMapper();
        try (HikariDataSource pool = PeerPool.open(url, workers)) {
            StorageProvider storage = storage(db, pool);
            try {
                storage.setJobMapper(new JobMapper(json));
                empty(pool);
                new JobScheduler(storage).enqueue(IntStream.range(0, jobs).boxed(), n -> NoopJob.run(n));
                BackgroundJobServer server = new BackgroundJobServer(storage, json, new NoActivator(),
                        BackgroundJobServerConfiguration.usingStandardBackgroundJobServerConfiguration()
                                .andWorkerCount(workers)
                                .andPollInterval(POLL_INTERVAL));
                server.setJobFilters(List.of(counting(completions)));
                completions.start();
                server.start();
                try {
                    return completions.await();
                } finally {
                    server.stop();
                }
            } finally {
                storage.close();
            }
        }
    }

    /** Creates JobRunr's tables where they are missing ({@code DatabaseOptions.CREATE}, the default). */
    private static DefaultSqlStorageProvider storage(String db, DataSource pool) {
        return db.equals("postgres") ? new PostgresStorageProvider(pool) : new MariaDbStorageProvider(pool);
    }

    /** Every run starts from empty jobs and servers tables (TRUNCATE: no dead rows left from the last run). */
    private static void empty(DataSource pool) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("TRUNCATE TABLE jobrunr_jobs");
            s.execute("TRUNCATE TABLE jobrunr_backgroundjobservers");
        }
    }

    /** Counts a job when its final state has been saved: JobRunr applies state filters after the save. */
    private static ApplyStateFilter counting(Completions completions) {
        return (Job job, JobState oldState, JobState newState) -> {
            if (newState instanceof SucceededState) {
                completions.completed(job.getId());
            } else if (newState instanceof FailedState failed) {
                completions.failed(job.getId(), failed.getExceptionType() + ": " + failed.getExceptionMessage());
            }
        };
    }

    /** The job is a static method: JobRunr never asks for an instance. */
    private static final class NoActivator implements JobActivator {
        @Override
        public <T> T activateJob(Class<T> type) {
            return null;
        }
    }
}
