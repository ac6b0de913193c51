package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.ClaimForm;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The connections subscriptions need, counted at open and compared with the pool; no deadlock when it is short. */
class ConnectionsTest {
    /** The sessions of the pool the broker built, told from the others by the name its connections give. */
    private static final String SESSIONS =
            "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'inbox-budget'";

    @Test
    void aPoolSmallerThanTheSubscriptionsNeedIsWarnedOfWithTheNumbers() {
        TestTable table = TestTable.of("budget_jobs", ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(TestDatabase.SQLITE);
        List<String> logged = LogCapture.during(() -> InboxBroker.fromUrl(TestDatabase.SQLITE.url()).connectionLimit(3)
                .subscribe(Subscription.of("budget", table.spec(), Job.class, (job, d) -> Outcome.ack()).workers(4))
                .connect().shutdown());
        assertThat(logged).anyMatch(line -> line.startsWith("WARNING") && line.contains("pool holds 3 connections")
                && line.contains("up to 6") && line.contains("queue budget: 6") && line.contains("at least 6"));
    }

    @Test
    void theApplicationsDataSourceIsToldHowManyConnectionsItShouldHold() {
        TestTable table = TestTable.of("budget_jobs", ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(TestDatabase.SQLITE);
        List<String> logged = LogCapture.during(() -> InboxBroker.fromDataSource(TestDatabase.SQLITE.dataSource())
                .subscribe(Subscription.of("budget", table.spec(), Job.class, (job, d) -> Outcome.ack()).workers(2)
                        .transactional(true))
                .connect().shutdown());
        assertThat(logged).anyMatch(line -> line.contains("up to 4 connections") && line.contains("transactional"));
    }

    @Test
    void theBuiltPoolHoldsTheConnectionsTheSubscriptionsNeedBeforeTheFirstClaim() throws Exception {
        TestDatabase db = TestDatabase.POSTGRES;
        TestTable table = TestTable.of("budget_jobs", ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        InboxBroker broker = InboxBroker.fromUrl(db.url() + "&ApplicationName=inbox-budget").listenNotify(false)
                .subscribe(Subscription.of("budget", table.spec(), Job.class, (job, d) -> Outcome.ack()).workers(4))
                .connect();
        try {
            // 4 workers' settlements, a claim loop and the ack writer: no claim of the first jobs waits while the
            // pool opens a connection (it kept 2 and opened the rest as claims and settlements asked for them).
            assertThat(db.number(SESSIONS)).isEqualTo(6);
        } finally {
            broker.shutdown();
        }
        assertThat(db.number(SESSIONS)).as("after shutdown").isZero();
    }

    @Test
    void aShortPoolSlowsRowLockClaimsButNeverDeadlocksThem() {
        TestDatabase db = TestDatabase.POSTGRES;
        TestTable table = TestTable.of("budget_jobs", ClaimForm.ROW_LOCK, TestTable.Feature.ATTEMPT);
        table.create(db);
        db.execute("INSERT INTO budget_jobs (payload) SELECT convert_to('{\"n\":' || n || '}', 'UTF8')"
                + " FROM generate_series(1, 200) n");
        InboxBroker broker = InboxBroker.fromUrl(db.url()).connectionLimit(2).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("budget", table.spec(), Job.class, (job, d) -> Outcome.ack()).workers(4))
                .connect();
        try {
            Eventually.await(() -> db.count("budget_jobs") == 0, Duration.ofSeconds(60), () -> "drained");
        } finally {
            broker.shutdown();
        }
    }
}
