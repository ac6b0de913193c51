package dev.inbox.engine;

import static dev.inbox.engine.TestTable.Feature.ATTEMPT;
import static dev.inbox.engine.TestTable.Feature.LEASE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Delivery;
import dev.inbox.Handler;
import dev.inbox.InboxException;
import dev.inbox.Isolation;
import dev.inbox.Outcome;
import dev.inbox.Publisher;
import dev.inbox.Subscription;
import dev.inbox.testkit.InboxTestKit;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Transactional deliveries in the engine (SPEC §8): ack commits writes with the settlement, every other outcome rolls them back first. */
class TransactionalTest {
    private TestTable table = TestTable.of("tx_jobs", ATTEMPT, LEASE);

    private InboxTestKit kit;
    private final List<String> seen = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (kit != null) {
            kit.close();
        }
    }

    private InboxTestKit start(TestDatabase db, dev.inbox.InboxSpec spec, Handler<Job> handler) {
        table.create(db);
        db.execute("DROP TABLE IF EXISTS tx_effects", "CREATE TABLE tx_effects (job INTEGER NOT NULL, attempt INTEGER NOT NULL)");
        kit = InboxTestKit.on(db.dataSource()).configure(b -> b.pollInterval(Duration.ofMillis(50)))
                .subscribe(Subscription.of("tx", spec, Job.class, handler).transactional(true))
                .start();
        return kit;
    }

    private static void effect(Delivery d, Job job) throws SQLException {
        effect(d, "tx_effects", job);
    }

    /** Writes the job's effect, with the delivery's attempt, into {@code table} through the delivery's transaction. */
    static void effect(Delivery d, String table, Job job) throws SQLException {
        try (PreparedStatement ps = d.connection().prepareStatement("INSERT INTO " + table + " (job, attempt) VALUES (?, ?)")) {
            ps.setInt(1, job.n());
            ps.setInt(2, d.attempt());
            ps.executeUpdate();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void onlyTheAckedAttemptsWritesRemainAndEveryAttemptIsSpent(FormCase c) {
        TestDatabase db = c.db();
        table = TestTable.of("tx_jobs", c.form(), ATTEMPT);
        start(db, table.spec(), (job, d) -> {
            effect(d, job);
            seen.add("attempt " + d.attempt());
            return switch (d.attempt()) {
                case 1 -> Outcome.retry();
                case 2 -> throw new IllegalStateException("second attempt fails after writing");
                default -> Outcome.ack();
            };
        });
        kit.publisher("tx", Job.class).publish(new Job(1));
        InboxTestKit.await(() -> kit.count(table.name()) == 0, Duration.ofSeconds(20), () -> "acked: " + seen);
        assertThat(seen).containsExactly("attempt 1", "attempt 2", "attempt 3");
        assertThat(kit.query("SELECT job, attempt FROM tx_effects"))
                .extracting(r -> ((Number) r.get("attempt")).intValue()).containsExactly(3);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void underLoadEachJobCommitsItsWritesExactlyOnce(FormCase c) {
        // Catches a lock or lease released before the delivery's commit: another claim would take
        // the row while its delete is uncommitted, and the job's writes would commit twice.
        TestDatabase db = c.db();
        table = TestTable.of("tx_jobs", c.form(), ATTEMPT);
        int jobs = 400;
        table.create(db);
        db.execute("DROP TABLE IF EXISTS tx_effects", "CREATE TABLE tx_effects (job INTEGER NOT NULL, attempt INTEGER NOT NULL)");
        kit = InboxTestKit.on(db.dataSource()).configure(b -> b.pollInterval(Duration.ofMillis(50)))
                .subscribe(Subscription.of("tx", table.spec(), Job.class, (job, d) -> {
                    effect(d, job);
                    return Outcome.ack();
                }).transactional(true).workers(db == TestDatabase.SQLITE ? 2 : 8)) // SQLite: the test pool holds 4
                .start();
        kit.publisher("tx", Job.class).publishAll(java.util.stream.IntStream.range(0, jobs).mapToObj(Job::new).toList());
        InboxTestKit.await(() -> kit.count(table.name()) == 0, Duration.ofSeconds(60), () -> "drained");
        assertThat(kit.count("tx_effects")).as("one committed effect per job").isEqualTo(jobs);
        assertThat(kit.query("SELECT job FROM tx_effects GROUP BY job HAVING COUNT(*) > 1")).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void dropRollsTheWritesBackAndRemovesTheRow(FormCase c) {
        TestDatabase db = c.db();
        table = TestTable.of("tx_jobs", c.form(), ATTEMPT);
        start(db, table.spec(), (job, d) -> {
            effect(d, job);
            seen.add("dropped");
            return Outcome.drop();
        });
        kit.publisher("tx", Job.class).publish(new Job(2));
        InboxTestKit.await(() -> kit.count(table.name()) == 0, Duration.ofSeconds(20), () -> "dropped");
        assertThat(seen).containsExactly("dropped");
        assertThat(kit.count("tx_effects")).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "CONNECTOR_J", "MYSQL"})
    void theTransactionRunsAtTheTablesIsolationLevel(TestDatabase db) {
        String query = db == TestDatabase.POSTGRES ? "SELECT current_setting('transaction_isolation')"
                : "SELECT @@tx_isolation";
        Handler<Job> report = (job, d) -> {
            try (Statement s = d.connection().createStatement(); ResultSet rs = s.executeQuery(query)) {
                rs.next();
                seen.add(rs.getString(1).toLowerCase().replace('-', ' '));
            }
            return Outcome.ack();
        };
        start(db, table.spec(), report);
        kit.publisher("tx", Job.class).publish(new Job(1));
        InboxTestKit.await(() -> seen.size() == 1, Duration.ofSeconds(20), () -> "delivered");
        kit.close();
        start(db, table.spec().isolation(Isolation.REPEATABLE_READ), report);
        kit.publisher("tx", Job.class).publish(new Job(2));
        InboxTestKit.await(() -> seen.size() == 2, Duration.ofSeconds(20), () -> "delivered");
        assertThat(seen).containsExactly("read committed", "repeatable read");
    }

    @Test
    void onSqliteAPublishThatWouldWaitForTheDeliverysWriteLockFailsWithWriteLockHeld() {
        List<InboxException.Kind> kinds = new CopyOnWriteArrayList<>();
        kit = InboxTestKit.sqlite().execute(
                "CREATE TABLE tx_jobs (id INTEGER PRIMARY KEY, attempt INTEGER NOT NULL DEFAULT 1, locked_until TEXT,"
                        + " payload BLOB NOT NULL)",
                "CREATE TABLE outbox_jobs (id INTEGER PRIMARY KEY, locked_until TEXT, payload BLOB NOT NULL)");
        // A second broker tracks the outbox queue on the same database.
        InboxBroker outbox = InboxBroker.fromDataSource(kit.dataSource())
                .route("outbox", Job.leaseTable("outbox_jobs").attempt(null)).connect();
        Publisher<Job> elsewhere = outbox.publisher("outbox", Job.class);
        try {
            kit.configure(b -> b.pollInterval(Duration.ofMillis(50)))
                    .subscribe(Subscription.of("tx", Job.leaseTable("tx_jobs"), Job.class, (job, d) -> {
                        long start = System.nanoTime();
                        try {
                            elsewhere.publish(new Job(99));
                        } catch (InboxException e) {
                            kinds.add(e.kind());
                            seen.add((System.nanoTime() - start) / 1_000_000 + " ms");
                        }
                        return Outcome.ack();
                    }).transactional(true))
                    .start();
            kit.publisher("tx", Job.class).publish(new Job(1));
            kit.awaitCount("tx_jobs", 0);
        } finally {
            outbox.shutdown();
        }
        assertThat(kinds).containsExactly(InboxException.Kind.WRITE_LOCK_HELD);
        assertThat(kit.count("outbox_jobs")).isZero();
        assertThat(Long.parseLong(seen.get(0).split(" ")[0])).as("fails at once, not after a busy timeout").isLessThan(1000);
    }

    @Test
    void aDeliveryOfANonTransactionalSubscriptionLendsNoConnection() {
        List<String> errors = new CopyOnWriteArrayList<>();
        kit = InboxTestKit.sqlite().execute("CREATE TABLE tx_jobs (id INTEGER PRIMARY KEY, attempt INTEGER NOT NULL"
                + " DEFAULT 1, locked_until TEXT, payload BLOB NOT NULL)")
                .subscribe(Subscription.of("plain", Job.leaseTable("tx_jobs"), Job.class, (job, d) -> {
                    try {
                        d.connection();
                    } catch (IllegalStateException e) {
                        errors.add(e.getMessage());
                    }
                    return Outcome.ack();
                }))
                .start();
        kit.publisher("plain", Job.class).publish(new Job(1));
        kit.awaitCount("tx_jobs", 0);
        assertThat(errors).singleElement().asString().contains("queue plain is not transactional");
    }
}
