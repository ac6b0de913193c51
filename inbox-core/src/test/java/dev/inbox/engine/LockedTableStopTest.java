package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.ClaimForm;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A stop keeps its deadline while another connection holds the queue table locked: the release of
 * a handler cut off at the drain timeout is not waited for, and the row comes back all the same.
 */
class LockedTableStopTest {
    private static final String TABLE = "locked_stop_jobs";
    private static final Duration DRAIN = Duration.ofSeconds(1);

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aCutOffWhoseReleaseMeetsALockedTableStopsByItsDeadlineAndTheRowComesBack(FormCase c) throws Exception {
        TestDatabase db = c.db();
        TestTable table = TestTable.of(TABLE, c.form(), TestTable.Feature.ATTEMPT);
        table.create(db);
        CountDownLatch started = new CountDownLatch(1);
        AtomicInteger firstCalls = new AtomicInteger();
        InboxBroker first = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("locked", table.spec(), Job.class, (job, d) -> {
                    firstCalls.incrementAndGet();
                    started.countDown();
                    Thread.sleep(60_000);
                    return Outcome.ack();
                }).lease(Duration.ofSeconds(2)))
                .connect();
        first.publisher("locked", Job.class).publish(new Job(1));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        // In the row lock form the claim's transaction holds the rows, so the lock waits for it to end.
        CompletableFuture<Connection> lock = CompletableFuture.supplyAsync(() -> lockTable(db));
        if (c.form() != ClaimForm.ROW_LOCK) {
            lock.get(10, TimeUnit.SECONDS);
        }
        long stopStart = System.nanoTime();
        List<String> logged = LogCapture.during(() -> first.shutdown(DRAIN));
        Duration stop = Duration.ofNanos(System.nanoTime() - stopStart);
        System.out.printf("LOCKED-STOP db=%s form=%s drain_ms=%d stop_ms=%d%n", db.name().toLowerCase(),
                c.form().name().toLowerCase(), DRAIN.toMillis(), stop.toMillis());
        try (Connection locked = lock.get(20, TimeUnit.SECONDS)) {
            assertThat(stop).as("the stop keeps its deadline").isLessThanOrEqualTo(DRAIN.plusSeconds(5));
            assertThat(logged).as("the subscription itself stopped by its deadline")
                    .noneMatch(line -> line.contains("did not stop by the deadline"));
            if (c.form() != ClaimForm.ADVISORY) { // where its lock went with the others' before the drain
                assertThat(logged).as("a warning names the queue and the row cut off")
                        .anyMatch(line -> line.startsWith("WARNING queue locked: ") && line.contains("row 1 "));
            }
            // the lock ends as its connection closes
        }

        AtomicInteger secondCalls = new AtomicInteger();
        InboxBroker second = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("locked", table.spec(), Job.class, (job, d) -> {
                    secondCalls.incrementAndGet();
                    return Outcome.ack();
                }).lease(Duration.ofSeconds(2)))
                .connect();
        try {
            Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(30),
                    () -> "the row is still there: " + db.count(TABLE) + " rows");
            Thread.sleep(500); // a second delivery of it would show by now
        } finally {
            second.shutdown(Duration.ofSeconds(5));
        }
        assertThat(firstCalls).as("the first broker's one attempt").hasValue(1);
        assertThat(secondCalls).as("handled once by the second broker").hasValue(1);
    }

    /**
     * The release a locked table keeps waiting ends by itself, so the connection it took goes back to
     * the application's pool while the table is still locked: no connection is held until the
     * database's lock or busy timeout (PostgreSQL has none).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void theWaitingReleaseGivesItsConnectionBackWhileTheTableStaysLocked(TestDatabase db) throws Exception {
        TestTable table = TestTable.of(TABLE, ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        HikariDataSource pool = db.dataSource();
        CountDownLatch started = new CountDownLatch(1);
        InboxBroker broker = InboxBroker.fromDataSource(pool).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("locked", table.spec(), Job.class, (job, d) -> {
                    started.countDown();
                    Thread.sleep(60_000);
                    return Outcome.ack();
                    // No room to claim more, and no extension due (each 15 s): the release alone meets the lock.
                }).prefetch(0))
                .connect();
        broker.publisher("locked", Job.class).publish(new Job(1));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        try (Connection locked = lockTable(db)) {
            broker.shutdown(DRAIN);
            Eventually.await(() -> pool.getHikariPoolMXBean().getActiveConnections() == 0, Duration.ofSeconds(3),
                    () -> pool.getHikariPoolMXBean().getActiveConnections() + " connections still in use");
        }
    }

    /** Another connection's lock on the whole table, held until that connection commits or closes. */
    private static Connection lockTable(TestDatabase db) {
        try {
            Connection c = DriverManager.getConnection(db.url());
            try (Statement s = c.createStatement()) {
                switch (db) {
                    case SQLITE -> {
                        s.execute("PRAGMA busy_timeout = 10000");
                        s.execute("BEGIN EXCLUSIVE");
                    }
                    case POSTGRES -> {
                        c.setAutoCommit(false);
                        s.execute("LOCK TABLE " + TABLE + " IN ACCESS EXCLUSIVE MODE");
                    }
                    case MARIADB, CONNECTOR_J, MYSQL -> {
                        c.setAutoCommit(false);
                        s.execute("LOCK TABLES " + TABLE + " WRITE");
                    }
                }
            }
            return c;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("locking table " + TABLE + " failed: " + e.getMessage(), e);
        }
    }
}
