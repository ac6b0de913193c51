package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.ShutdownReport;
import dev.inbox.Subscription;
import dev.inbox.spi.BrokerListener;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What is particular to the advisory lock form: locks released on settlement, and by shutdown for deliveries in work. */
class AdvisoryTest {
    private static final TestTable TABLE = TestTable.of("adv_jobs", ClaimForm.ADVISORY, TestTable.Feature.ATTEMPT);

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "CONNECTOR_J", "MYSQL"})
    void settlementReleasesTheLockOnTheServer(TestDatabase db) throws Exception {
        TABLE.create(db);
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("adv", TABLE.spec(), Job.class, (job, d) -> Outcome.ack()).workers(4))
                .connect();
        try {
            for (int i = 0; i < 50; i++) {
                broker.publisher("adv", Job.class).publish(new Job(i));
            }
            Eventually.await(() -> db.count(TABLE.name()) == 0, Duration.ofSeconds(20), () -> "drained");
            Eventually.await(() -> advisoryLocksHeld(db) == 0, Duration.ofSeconds(5),
                    () -> advisoryLocksHeld(db) + " advisory locks still held");
        } finally {
            broker.shutdown();
        }
    }

    /**
     * At one worker the next claim runs while the previous claim's ack commits and its lock goes:
     * a candidate read just before is gone when taken. Such a claim must look again, not wait for
     * the poll, which here is an hour away: the drain finishes only if no claim waited for it.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB", "CONNECTOR_J", "MYSQL"})
    void aDrainAtOneWorkerNeverWaitsForThePollWhileRowsAreDue(TestDatabase db) throws Exception {
        TABLE.create(db);
        for (int batch : new int[] {1, 16}) {
            publish(db, 400);
            InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).pollInterval(Duration.ofHours(1))
                    .subscribe(Subscription.of("adv", TABLE.spec(), Job.class, (job, d) -> Outcome.ack()).workers(1)
                            .batchSize(batch))
                    .connect();
            try {
                Eventually.await(() -> db.count(TABLE.name()) == 0, Duration.ofSeconds(60),
                        () -> db.count(TABLE.name()) + " rows left at batch " + batch + ": a claim waited for the poll");
            } finally {
                broker.shutdown();
            }
        }
    }

    /**
     * Rows in work, and acked rows waiting for their claim's last delivery, keep their locks and
     * stay due. At batches as large as the scan reads past them (256 rows), two claims in work held
     * every row the next claim's scan read, and it found nothing and waited for the poll while 300
     * rows were due. Here the poll is an hour away: the third claim must take rows 601 to 900.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void aClaimReadsPastTheRowsThisProcessHolds(TestDatabase db) throws Exception {
        TABLE.create(db);
        publish(db, 900);
        CountDownLatch release = new CountDownLatch(1);
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).pollInterval(Duration.ofHours(1))
                .subscribe(Subscription.ofBatch("adv", TABLE.spec(), Job.class, (payloads, deliveries) -> {
                    if (payloads.stream().anyMatch(job -> job.n() < 600)) {
                        release.await(60, TimeUnit.SECONDS); // the first two claims stay in work
                    }
                    return java.util.Collections.nCopies(payloads.size(), Outcome.ack());
                }).workers(3).batchSize(300))
                .connect();
        try {
            Eventually.await(() -> db.count(TABLE.name()) == 600, Duration.ofSeconds(30),
                    () -> db.count(TABLE.name()) + " rows left, not 600: the third claim found no row past those held");
            release.countDown();
            Eventually.await(() -> db.count(TABLE.name()) == 0, Duration.ofSeconds(30),
                    () -> db.count(TABLE.name()) + " rows left after the first claims were released");
        } finally {
            release.countDown();
            broker.shutdown();
        }
    }

    /** Publishes jobs 0 to {@code count - 1} in one batch, through a broker that subscribes to nothing. */
    private static void publish(TestDatabase db, int count) {
        InboxBroker publisher = InboxBroker.fromDataSource(db.dataSource()).route("adv", TABLE.spec()).connect();
        try {
            publisher.publisher("adv", Job.class).publishAll(java.util.stream.IntStream.range(0, count)
                    .mapToObj(Job::new).toList());
        } finally {
            publisher.shutdown();
        }
    }

    /** Locks held on the server by any session (MariaDB: for the keys of the rows of this test). */
    private static long advisoryLocksHeld(TestDatabase db) {
        String sql = db == TestDatabase.POSTGRES ? "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                : "SELECT count(*) FROM (SELECT 1 AS n) x WHERE "
                        + "IS_USED_LOCK(SHA1('adv_jobs:1')) IS NOT NULL OR IS_USED_LOCK(SHA1('adv_jobs:25')) IS NOT NULL";
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void shutdownReleasesTheLocksOfDeliveriesInWorkWhoseSettlementThenFailsWithClosed(TestDatabase db)
            throws Exception {
        TABLE.create(db);
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch finish = new CountDownLatch(1);
        List<InboxException.Kind> failures = new CopyOnWriteArrayList<>();
        InboxBroker a = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .listener(new BrokerListener() {
                    @Override
                    public void settlementFailed(String queue, Object id, Outcome outcome, InboxException error) {
                        failures.add(error.kind());
                    }
                })
                .subscribe(Subscription.of("adv", TABLE.spec(), Job.class, (job, d) -> {
                    started.countDown();
                    finish.await(20, TimeUnit.SECONDS);
                    return Outcome.ack();
                }).workers(2))
                .connect();
        a.publisher("adv", Job.class).publish(new Job(1));
        a.publisher("adv", Job.class).publish(new Job(2));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        Thread release = releaseLater(finish);
        ShutdownReport report = a.shutdown(Duration.ofSeconds(10));
        release.join();

        assertThat(report.locksReleased()).isEqualTo(2);
        assertThat(failures).containsExactly(InboxException.Kind.CLOSED, InboxException.Kind.CLOSED);
        assertThat(db.count(TABLE.name())).as("both rows are back in the queue").isEqualTo(2);

        List<Integer> handled = new CopyOnWriteArrayList<>();
        InboxBroker b = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("adv", TABLE.spec(), Job.class, (job, d) -> {
                    handled.add(job.n());
                    return Outcome.ack();
                }))
                .connect();
        try {
            Eventually.await(() -> db.count(TABLE.name()) == 0, Duration.ofSeconds(10), () -> "b handles both");
        } finally {
            b.shutdown();
        }
        assertThat(handled).containsExactlyInAnyOrder(1, 2);
    }

    /** On SQLite the acks instead wait, locked, for the next claim's count of attempts (AdvisoryAcksTest). */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "SQLITE", mode = EnumSource.Mode.EXCLUDE)
    void acksWaitLockedForTheClaimsLastDeliveryAndAreThenWrittenTogether(TestDatabase db) throws Exception {
        TABLE.create(db);
        CountDownLatch lastStarted = new CountDownLatch(1);
        CountDownLatch finishLast = new CountDownLatch(1);
        List<Integer> acked = new CopyOnWriteArrayList<>();
        List<String> handled = new CopyOnWriteArrayList<>();
        InboxBroker a = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .listener(new BrokerListener() {
                    @Override
                    public void settled(String queue, Object id, int attempt, Outcome outcome) {
                        acked.add(((Number) id).intValue());
                    }
                })
                .subscribe(Subscription.of("adv", TABLE.spec(), Job.class, (job, d) -> {
                    handled.add("a " + job.n());
                    if (job.n() == 3) {
                        lastStarted.countDown();
                        finishLast.await(20, TimeUnit.SECONDS);
                    }
                    return Outcome.ack();
                }).workers(3).batchSize(3).prefetch(0)) // one claim loop: one claim takes all three
                .connect();
        InboxBroker b = null;
        try {
            a.publisher("adv", Job.class).publishAll(List.of(new Job(1), new Job(2), new Job(3)));
            assertThat(lastStarted.await(10, TimeUnit.SECONDS)).isTrue();
            Eventually.await(() -> handled.containsAll(List.of("a 1", "a 2")), Duration.ofSeconds(10),
                    () -> "rows 1 and 2 handled: " + handled);
            Thread.sleep(200);
            assertThat(db.count(TABLE.name())).as("the acks wait for the claim's last delivery").isEqualTo(3);
            assertThat(acked).as("an ack is reported once written").isEmpty();

            // Another process finds every row of the claim still locked.
            b = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                    .subscribe(Subscription.of("adv", TABLE.spec(), Job.class, (job, d) -> {
                        handled.add("b " + job.n());
                        return Outcome.ack();
                    }))
                    .connect();
            Thread.sleep(500);
            finishLast.countDown();
            Eventually.await(() -> db.count(TABLE.name()) == 0, Duration.ofSeconds(10), () -> "all three written");
        } finally {
            finishLast.countDown();
            a.shutdown();
            if (b != null) {
                b.shutdown();
            }
        }
        assertThat(handled).containsExactlyInAnyOrder("a 1", "a 2", "a 3");
        assertThat(acked).hasSize(3);
    }

    @org.junit.jupiter.api.Test
    void aLockSessionWhoseLocksCannotBeReleasedIsClosedAtShutdownAndCountedSo() throws Exception {
        TestDatabase db = TestDatabase.POSTGRES;
        TABLE.create(db);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("adv", TABLE.spec(), Job.class, (job, d) -> {
                    started.countDown();
                    finish.await(20, TimeUnit.SECONDS);
                    return Outcome.ack();
                }).prefetch(0)) // no second claim while the handler runs: the row's lock dies below
                .connect();
        broker.publisher("adv", Job.class).publish(new Job(1));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        // The session holding the delivery's lock dies under it: its release at shutdown fails.
        db.execute("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'");
        Thread release = releaseLater(finish);
        ShutdownReport report = broker.shutdown(Duration.ofSeconds(10));
        release.join();
        assertThat(report.locksReleased()).isZero();
        assertThat(report.connectionsClosed()).as("the session closed with its lock, not given back").isEqualTo(1);
        assertThat(advisoryLocksHeld(db)).isZero();
        assertThat(db.count(TABLE.name())).as("the row is back in the queue").isEqualTo(1);
    }

    /** Opens {@code finish} half a second from now, while a shutdown waits for the handlers it holds. */
    private static Thread releaseLater(CountDownLatch finish) {
        Thread release = new Thread(() -> {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finish.countDown();
        });
        release.start();
        return release;
    }
}
