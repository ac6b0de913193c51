package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The connections subscriptions need, counted at open and compared with the pool: a pool they only
 * share slowly is warned of and never deadlocks; one that connections waiting for another can fill
 * whole is refused at connect.
 */
class ConnectionsTest {
    /** The sessions of the pool the broker built, told from the others by the name its connections give. */
    private static final String SESSIONS = "SELECT COUNT(*) FROM pg_stat_activity"
            + " WHERE application_name = 'inbox-budget' AND datname = current_database()";

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

    /** Publishes {@code jobs} and waits until the subscription has worked them all. */
    private static void drains(InboxBroker broker, TestDatabase db, int jobs) {
        for (int n = 0; n < jobs; n++) {
            broker.publisher("budget", Job.class).publish(new Job(n));
        }
        Eventually.await(() -> db.count("budget_jobs") == 0, Duration.ofSeconds(60), () -> "drained");
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB"}) // SQLite serves no row lock form
    void aPoolShortOfTransactionalRowLockClaimsIsWarnedOfAndStillDrains(TestDatabase db) {
        // Each claim's transaction takes its delivery's writes, on its own connection: claims take turns.
        TestTable table = TestTable.of("budget_jobs", ClaimForm.ROW_LOCK, TestTable.Feature.ATTEMPT);
        table.create(db);
        InboxBroker broker = InboxBroker.fromUrl(db.url()).connectionLimit(1).pollInterval(Duration.ofMillis(50))
                .listenNotify(false).subscribe(Subscription.of("budget", table.spec(), Job.class,
                        (job, d) -> Outcome.ack()).workers(4).transactional(true));
        List<String> logged = LogCapture.during(broker::connect);
        try {
            assertThat(logged).anyMatch(line -> line.startsWith("WARNING") && line.contains("pool holds 1 connections")
                    && line.contains("queue budget: 5") && line.contains("raise connectionLimit to at least 6"));
            drains(broker, db, 20);
        } finally {
            broker.shutdown();
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "SQLITE"})
    void aPoolAdvisorySessionsCanFillWhileTheirTransactionalDeliveriesWaitIsRefusedAtConnect(TestDatabase db) {
        // One worker: two lock sessions at once (the worked claim and the next), each holding its connection
        // while its transactional delivery waits for one more. At 2 both sessions took the pool and every
        // delivery waited out the pool's 30 s timeout.
        TestTable table = TestTable.of("budget_jobs", ClaimForm.ADVISORY, TestTable.Feature.ATTEMPT);
        table.create(db);
        refusedBelowAndDrainsAt(3, db, false, Subscription.of("budget", table.spec(), Job.class,
                (job, d) -> Outcome.ack()).transactional(true), "queue budget's 2 advisory lock sessions");
    }

    @Test
    void aPoolTheListenConnectionTakesWholeIsRefusedAtConnect() {
        // The LISTEN connection is held while the broker runs: at 1 no claim, settlement or publish found one.
        TestDatabase db = TestDatabase.POSTGRES;
        TestTable table = TestTable.of("budget_jobs", ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        refusedBelowAndDrainsAt(2, db, true, Subscription.of("budget", table.spec(), Job.class,
                (job, d) -> Outcome.ack()), "the LISTEN connection is held");
    }

    /**
     * A broker of {@code subscription} with one connection fewer than {@code floor} is refused at
     * connect, naming connectionLimit, the floor and {@code why}; one with {@code floor} drains.
     */
    private static void refusedBelowAndDrainsAt(int floor, TestDatabase db, boolean listen,
            Subscription<Job> subscription, String why) {
        assertThatThrownBy(() -> InboxBroker.fromUrl(db.url()).connectionLimit(floor - 1).listenNotify(listen)
                .subscribe(subscription).connect())
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                    assertThat(e.getMessage()).contains("connectionLimit is " + (floor - 1),
                            "raise connectionLimit to at least " + floor, why);
                });
        InboxBroker broker = InboxBroker.fromUrl(db.url()).connectionLimit(floor).pollInterval(Duration.ofMillis(50))
                .listenNotify(listen).subscribe(subscription).connect();
        try {
            drains(broker, db, 20);
        } finally {
            broker.shutdown();
        }
    }

    @Test
    void onSqliteAPublishTakesItsWriteTurnBeforeAConnection() {
        // A publish that held the pool's connection while it waited for the turn of a transactional delivery,
        // which waited for a connection, stalled both until the gate's 10 s wait gave out.
        TestDatabase db = TestDatabase.SQLITE;
        TestTable table = TestTable.of("budget_jobs", ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        InboxBroker broker = InboxBroker.fromUrl(db.url()).connectionLimit(1).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("budget", table.spec(), Job.class, (job, d) -> Outcome.ack())
                        .transactional(true));
        List<String> logged = LogCapture.during(() -> {
            broker.connect();
            try {
                drains(broker, db, 10);
            } finally {
                broker.shutdown();
            }
        });
        assertThat(logged).noneMatch(line -> line.contains("for its turn"));
    }
}
