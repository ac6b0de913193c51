package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Two brokers with four workers each drain 10,000 jobs: every job handled once, never two deliveries of a row at once. */
class DrainTest {
    private static final int JOBS = 10_000;
    private static final String TABLE = "drain_jobs";

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void twoBrokersDrainTenThousandJobsWithoutOverlap(FormCase c) throws SQLException {
        TestDatabase db = c.db();
        TestTable table = TestTable.of(TABLE, c.form(), TestTable.Feature.ATTEMPT);
        table.create(db);
        insertJobs(db);
        Spans spans = new Spans();
        List<InboxBroker> brokers = new ArrayList<>();
        long start = System.nanoTime();
        for (String name : List.of("a", "b")) {
            brokers.add(InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(200))
                    .subscribe(Subscription.of("drain", table.spec(), Job.class, (job, delivery) -> {
                        long begin = System.nanoTime();
                        if (job.n() % 10 == 0) {
                            Thread.sleep(1); // some handlers take a while, so overlaps would show
                        }
                        spans.record(job.n(), begin, name);
                        return Outcome.ack();
                    }).workers(4))
                    .connect());
        }
        try {
            Eventually.await(() -> spans.size() >= JOBS && db.count(TABLE) == 0, Duration.ofMinutes(3),
                    () -> spans.size() + " deliveries, " + db.count(TABLE) + " rows left");
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("DRAIN db=%s form=%s brokers=2 workers=4 jobs=%d seconds=%.2f jobs_per_s=%.0f%n",
                    db.name().toLowerCase(), c.form().name().toLowerCase(), JOBS, seconds, JOBS / seconds);
        } finally {
            brokers.forEach(b -> b.shutdown(Duration.ofSeconds(5)));
        }
        spans.assertEachHandledOnceWithoutOverlap(JOBS);
        assertThat(db.count(TABLE)).isZero();
    }

    private static void insertJobs(TestDatabase db) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (payload) VALUES (?)")) {
            c.setAutoCommit(false);
            for (int i = 0; i < JOBS; i++) {
                ps.setBytes(1, ("{\"n\":" + i + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                ps.addBatch();
                if (i % 1000 == 999) {
                    ps.executeBatch();
                }
            }
            c.commit();
            c.setAutoCommit(true);
        }
    }
}
