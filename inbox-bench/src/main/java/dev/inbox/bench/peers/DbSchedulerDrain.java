package dev.inbox.bench.peers;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.IntStream;
import javax.sql.DataSource;

/**
 * Drains one-time tasks of a no-op task through db-scheduler with its {@code lock-and-fetch}
 * polling ({@code SELECT ... FOR UPDATE SKIP LOCKED} that picks a batch in one statement, then one
 * {@code DELETE} per completed one-time execution). The table is created anew and filled through
 * {@code SchedulerClient.scheduleBatch} before the scheduler starts; the clock runs from
 * {@code Scheduler.start()} until the last execution's completion has been written.
 */
public final class DbSchedulerDrain {
    public static final String NAME = "db-scheduler";

    /**
     * Its docs' setting for high throughput ("keep threads busy"): fetch again when the executions
     * waiting drop to one per thread, up to four per thread.
     */
    private static final double LOWER_LIMIT_FRACTION_OF_THREADS = 1.0;
    private static final double UPPER_LIMIT_FRACTION_OF_THREADS = 4.0;
    /**
     * After a fetch that was not a full batch it waits this long; with a filled table only the
     * last fetches are short, so this bounds the tail, not the rate (the default is 10 s).
     */
    private static final Duration POLLING_INTERVAL = Duration.ofMillis(100);

    private DbSchedulerDrain() {}

    /**
     * Lock-and-fetch runs on PostgreSQL. On MariaDB db-scheduler 16 refuses it ("Database using
     * jdbc-customization 'MariaDB' does not support lock-and-fetch polling"), though MariaDB has had
     * {@code SKIP LOCKED} since 10.6: its MariaDB customization does not claim it.
     */
    public static boolean serves(String db) {
        return db.equals("postgres");
    }

    public static Drained run(String db, String url, int workers, int jobs) throws Exception {
        String what = NAME + " on " + db + ", " + workers + " workers";
        Completions completions = new Completions(what, jobs);
        OneTimeTask<Void> task = Tasks.oneTime("bench-noop").execute((instance, context) -> {});
        try (HikariDataSource pool = PeerPool.open(url, workers)) {
            createTable(pool);
            SchedulerClient.Builder.create(pool, task).build().scheduleBatch(
                    IntStream.range(0, jobs).<TaskInstance<?>>mapToObj(n -> task.instance(String.valueOf(n))),
                    Instant.now());
            Scheduler scheduler = Scheduler.create(pool, task)
                    .threads(workers)
                    .pollUsingLockAndFetch(LOWER_LIMIT_FRACTION_OF_THREADS, UPPER_LIMIT_FRACTION_OF_THREADS)
                    .pollingInterval(POLLING_INTERVAL)
                    // The default name looks the host name up; the heartbeat (every 5 min) stays the default.
                    .schedulerName(new SchedulerName.Fixed("inbox-bench"))
                    .shutdownMaxWait(Duration.ofSeconds(5))
                    .addSchedulerListener(new AbstractSchedulerListener() {
                        @Override
                        public void onExecutionComplete(ExecutionComplete complete) {
                            // Called after the completion handler removed the one-time execution.
                            String id = complete.getExecution().getId();
                            if (complete.getResult() == ExecutionComplete.Result.OK) {
                                completions.completed(id);
                            } else {
                                completions.failed(id, String.valueOf(complete.getCause().orElse(null)));
                            }
                        }
                    })
                    .build();
            Drained drained;
            completions.start();
            scheduler.start();
            try {
                drained = completions.await();
            } finally {
                scheduler.stop();
            }
            long left = count(pool);
            if (left != 0) {
                throw new IllegalStateException(what + " completed " + jobs + " jobs, and " + left
                        + " rows are left in scheduled_tasks");
            }
            return drained;
        }
    }

    /**
     * db-scheduler's PostgreSQL table as its repository gives it for 16.x (the jar has no DDL), created
     * anew for each run.
     */
    private static void createTable(DataSource pool) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS scheduled_tasks");
            s.execute("""
                    CREATE TABLE scheduled_tasks (
                      task_name TEXT NOT NULL,
                      task_instance TEXT NOT NULL,
                      task_data BYTEA,
                      execution_time TIMESTAMP WITH TIME ZONE NOT NULL,
                      picked BOOLEAN NOT NULL,
                      picked_by TEXT,
                      last_success TIMESTAMP WITH TIME ZONE,
                      last_failure TIMESTAMP WITH TIME ZONE,
                      consecutive_failures INT,
                      last_heartbeat TIMESTAMP WITH TIME ZONE,
                      version BIGINT NOT NULL,
                      priority SMALLINT,
                      PRIMARY KEY (task_name, task_instance))""");
            s.execute("CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)");
            s.execute("CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)");
            s.execute("CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC)");
        }
    }

    private static long count(DataSource pool) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM scheduled_tasks")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
