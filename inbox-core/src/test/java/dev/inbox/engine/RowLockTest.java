package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.ClaimForm;
import dev.inbox.Isolation;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.spi.BrokerListener;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What is particular to the row lock form: the claim's transaction holds the row while the handler runs. */
class RowLockTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "CONNECTOR_J", "MYSQL"})
    void aRowInWorkIsHeldByItsTransactionAndSkippedByOtherClaims(TestDatabase db) throws Exception {
        TestTable table = TestTable.of("rl_jobs", ClaimForm.ROW_LOCK, TestTable.Feature.ATTEMPT);
        table.create(db);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        List<String> seen = new CopyOnWriteArrayList<>();
        InboxBroker a = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("rl", table.spec(), Job.class, (job, d) -> {
                    seen.add("a " + job.n());
                    started.countDown();
                    finish.await(20, TimeUnit.SECONDS);
                    return Outcome.ack();
                }))
                .connect();
        InboxBroker b = null;
        try {
            // a's one worker takes job 1 and blocks; job 2 waits in a's buffer (one row per worker).
            a.publisher("rl", Job.class).publish(new Job(1));
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            a.publisher("rl", Job.class).publish(new Job(2));
            Eventually.await(() -> claimable(db, table.name()) == 0, Duration.ofSeconds(10),
                    () -> "a holds both rows");
            b = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                    .subscribe(Subscription.of("rl", table.spec(), Job.class, (job, d) -> {
                        seen.add("b " + job.n());
                        return Outcome.ack();
                    }))
                    .connect();
            b.publisher("rl", Job.class).publish(new Job(3));
            Eventually.await(() -> seen.contains("b 3"), Duration.ofSeconds(10), () -> "b handles job 3: " + seen);
            // b's ack commits just after its handler returns; jobs 1 and 2 stay, locked by a's open transactions.
            Eventually.await(() -> db.count(table.name()) == 2, Duration.ofSeconds(10), () -> "b acked job 3");
            assertThat(seen).containsExactly("a 1", "b 3");
            finish.countDown();
            Eventually.await(() -> db.count(table.name()) == 0, Duration.ofSeconds(10), () -> "a acked jobs 1, 2");
        } finally {
            finish.countDown();
            a.shutdown();
            if (b != null) {
                b.shutdown();
            }
        }
        assertThat(seen).containsExactlyInAnyOrder("a 1", "a 2", "b 3");
    }

    /** Rows no transaction holds: what a claim could take now. */
    private static long claimable(TestDatabase db, String table) {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM " + table + " FOR UPDATE SKIP LOCKED")) {
            long rows = 0;
            while (rs.next()) {
                rows++;
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aSerializationFailureAtAStricterLevelIsReportedAsSuchAndNothingIsLost() {
        TestDatabase db = TestDatabase.POSTGRES;
        TestTable table = TestTable.of("rl_serial_jobs", ClaimForm.ROW_LOCK, TestTable.Feature.ATTEMPT);
        table.create(db);
        int jobs = 1000;
        db.execute("INSERT INTO rl_serial_jobs (payload) SELECT convert_to('{\"n\":' || n || '}', 'UTF8')"
                + " FROM generate_series(0, " + (jobs - 1) + ") n");
        List<String> failures = new CopyOnWriteArrayList<>();
        AtomicInteger handled = new AtomicInteger();
        List<InboxBroker> brokers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            brokers.add(InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(20))
                    .listener(new BrokerListener() {
                        @Override
                        public void databaseFailed(String queue, String what, Exception error) {
                            failures.add(error.getMessage());
                        }
                    })
                    .subscribe(Subscription.of("serial", table.spec().isolation(Isolation.SERIALIZABLE), Job.class,
                            (job, d) -> {
                                handled.incrementAndGet();
                                return Outcome.ack();
                            }).workers(8).batchSize(2))
                    .connect());
        }
        try {
            Eventually.await(() -> db.count(table.name()) == 0, Duration.ofMinutes(2),
                    () -> db.count(table.name()) + " rows left");
        } finally {
            brokers.forEach(InboxBroker::shutdown);
        }
        System.out.println("row lock at SERIALIZABLE: " + failures.size() + " serialization failures reported");
        assertThat(failures).isNotEmpty()
                .allMatch(m -> m.contains("serialization failure at isolation SERIALIZABLE") && m.contains("READ_COMMITTED"));
        assertThat(handled.get()).isGreaterThanOrEqualTo(jobs);
    }
}
