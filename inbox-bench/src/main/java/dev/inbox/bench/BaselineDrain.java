package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.InboxSpec;
import dev.inbox.bench.meter.Meter;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The plain JDBC drain the engine is measured against: the same claim and settlement statements
 * the dialect builds, on the same number of threads and the same batch size, with no engine
 * around them. Each thread opens its connections and prepares its statements before the clock
 * starts, then claims and settles until the table's jobs are all done.
 */
final class BaselineDrain {
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private BaselineDrain() {}

    /** Drains the filled table. */
    static Meter.Measured run(BenchDatabase db, ClaimForm form, int threads, int batch, int jobs,
            boolean transactional) throws Exception {
        Dialect dialect = db.dialect();
        TableShape shape = db.shape(form);
        InboxSpec spec = shape.spec();
        // As the engine: the acks of many rows in one statement where the dialect has one.
        String ackAll = transactional || batch == 1 ? null : switch (form) {
            case LEASE -> dialect.lease(shape).ackAll();
            case ROW_LOCK -> dialect.rowLock(shape).ackAll();
            case ADVISORY -> dialect.advisory(shape).ackAll();
        };
        Set<String> inProcessLocks = ConcurrentHashMap.newKeySet();
        AtomicLong done = new AtomicLong();
        AtomicBoolean failed = new AtomicBoolean();
        return Parallel.time(threads, jobs, index -> {
            BaselineLoop loop = switch (form) {
                case LEASE -> new LeaseLoop(db, spec, dialect.lease(shape), ackAll, batch, transactional);
                case ROW_LOCK -> new RowLockLoop(db, spec, dialect.rowLock(shape), ackAll, batch, transactional);
                case ADVISORY -> new AdvisoryLoop(db, spec, dialect.advisory(shape), ackAll, batch, transactional,
                        inProcessLocks);
            };
            return new Parallel.Worker() {
                @Override
                public void run() throws Exception {
                    try {
                        drain(loop, done, jobs, failed);
                    } catch (Exception e) {
                        failed.set(true); // the other threads stop too
                        throw e;
                    }
                }

                @Override
                public void close() throws Exception {
                    loop.close();
                }
            };
        });
    }

    /** Rounds until every job is done; a round that finds nothing claimable waits a moment for rows in work elsewhere. */
    private static void drain(BaselineLoop loop, AtomicLong done, int jobs, AtomicBoolean failed)
            throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (done.get() < jobs && !failed.get()) {
            int settled = loop.round();
            if (settled > 0) {
                done.addAndGet(settled);
            } else if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the baseline did not drain " + jobs + " jobs in " + TIMEOUT
                        + "; " + done.get() + " are done");
            } else {
                Thread.sleep(1);
            }
        }
    }
}
