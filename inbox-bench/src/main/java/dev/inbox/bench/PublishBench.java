package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.Publisher;
import dev.inbox.bench.meter.Meter;
import dev.inbox.engine.InboxBroker;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Inserts jobs into an empty lease table through the engine's publisher and through a plain JDBC
 * loop running the dialect's insert, on the same threads. Batch 1 publishes one job per
 * transaction ({@code publisher.publish(job)} beside an autocommit insert); a larger batch puts
 * that many jobs in one transaction: {@code publisher.publishAll(jobs)} beside
 * {@code addBatch}/{@code executeBatch} of the same insert and a commit.
 */
final class PublishBench {
    static final ClaimForm FORM = ClaimForm.LEASE;

    private PublishBench() {}

    static Meter.Measured engine(BenchDatabase db, int threads, int batch, int jobs) throws Exception {
        db.create(FORM);
        InboxBroker broker = InboxBroker.fromUrl(db.url()).connectionLimit(threads + 2)
                .route(BenchDatabase.QUEUE, db.spec(FORM))
                .connect();
        try {
            Publisher<Job> publisher = broker.publisher(BenchDatabase.QUEUE, Job.class);
            Meter.Measured measured = Parallel.time(threads, jobs, index -> batch == 1
                    ? () -> publishSingly(publisher, index, Parallel.share(jobs, threads, index))
                    : () -> publishInBatches(publisher, batch, Parallel.share(jobs, threads, index)));
            check(db, jobs);
            return measured;
        } finally {
            broker.shutdown(Duration.ofSeconds(5));
        }
    }

    /** publishAll: each batch one JDBC batch in one transaction of its own. */
    private static void publishInBatches(Publisher<Job> publisher, int batch, int share) {
        List<Job> jobs = new ArrayList<>(batch);
        for (int i = 0; i < share; i++) {
            jobs.add(new Job(i));
            if (jobs.size() == batch || i == share - 1) {
                publisher.publishAll(jobs);
                jobs.clear();
            }
        }
    }

    private static void publishSingly(Publisher<Job> publisher, int index, int share) {
        for (int i = 0; i < share; i++) {
            publisher.publish(new Job(i));
        }
    }

    static Meter.Measured baseline(BenchDatabase db, int threads, int batch, int jobs) throws Exception {
        db.create(FORM);
        Dialect dialect = db.dialect();
        Sql insert = new Sql("insert", dialect.insert(db.shape(FORM)));
        Meter.Measured measured = Parallel.time(threads, jobs, index -> new Parallel.Worker() {
            final Connection connection = db.connect();
            final PreparedStatement ps = insert.prepare(connection);

            @Override
            public void run() throws Exception {
                connection.setAutoCommit(batch == 1);
                int share = Parallel.share(jobs, threads, index);
                for (int i = 0; i < share; i++) {
                    insert.setBytes(ps, "payload", Job.json(i));
                    insert.setTime(ps, "due", null, dialect);
                    if (batch == 1) {
                        ps.executeUpdate();
                        continue;
                    }
                    ps.addBatch();
                    if (i % batch == batch - 1 || i == share - 1) {
                        ps.executeBatch();
                        connection.commit();
                    }
                }
            }

            @Override
            public void close() throws Exception {
                connection.close();
            }
        });
        check(db, jobs);
        return measured;
    }

    private static void check(BenchDatabase db, int jobs) throws Exception {
        long rows = db.count(BenchDatabase.TABLE);
        if (rows != jobs) {
            throw new IllegalStateException(db.name() + ": " + rows + " rows were published, not " + jobs);
        }
    }
}
