package dev.inbox.engine;

import static dev.inbox.engine.TestTable.Feature.ATTEMPT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.ClaimForm;
import dev.inbox.Delivery;
import dev.inbox.Handler;
import dev.inbox.InboxException;
import dev.inbox.Isolation;
import dev.inbox.Outcome;
import dev.inbox.ShutdownReport;
import dev.inbox.SqliteMode;
import dev.inbox.Subscription;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.testkit.InboxTestKit;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Transactional deliveries whose transactions belong to the thread that began them, as JTA's do
 * (SPEC §8): in every form the handler's writes and the settlement commit together, and in the row
 * lock form the claim too, on the worker's thread, inside the delivery's transaction.
 */
class ThreadBoundTransactionsTest {
    private static final String DEAD = "tb_dead";
    private TestTable table;
    private InboxTestKit kit;
    private ThreadBoundTransactions transactions;
    private final List<String> seen = new CopyOnWriteArrayList<>();
    /** Deliveries whose connection was not the one of the transaction open on their thread. */
    private final List<String> outside = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (kit != null) {
            kit.close();
        }
    }

    static Stream<FormCase> rowLock() {
        return FormCase.all().filter(c -> c.form() == ClaimForm.ROW_LOCK);
    }

    private void create(FormCase c) {
        table = TestTable.of("tb_jobs", c.form(), ATTEMPT);
        table.create(c.db());
        table.createDeadLetter(c.db(), DEAD);
        c.db().execute("DROP TABLE IF EXISTS tb_effects",
                "CREATE TABLE tb_effects (job INTEGER NOT NULL, attempt INTEGER NOT NULL)");
    }

    private InboxTestKit start(FormCase c, int workers, Handler<Job> handler) {
        transactions = new ThreadBoundTransactions(c.db().serverDataSource());
        kit = InboxTestKit.on(c.db().serverDataSource())
                .configure(b -> b.pollInterval(Duration.ofMillis(50)).deliveryTransactions(transactions))
                .subscribe(Subscription.of("tb", table.spec(), Job.class, (job, d) -> {
                    if (d.connection() != transactions.open.get(Thread.currentThread())) {
                        outside.add(job.n() + " on " + Thread.currentThread().getName());
                    }
                    return handler.handle(job, d);
                }).transactional(true).workers(workers).maxAttempts(3).deadLetter(DEAD))
                .start();
        return kit;
    }

    private static void effect(Delivery d, Job job) throws SQLException {
        TransactionalTest.effect(d, "tb_effects", job);
    }

    /**
     * Attempts 1, 2 and 3 in order. In the row lock form an attempt may show twice: when another
     * worker claims the row in the moment between its transaction's rollback and its settlement,
     * that claim works the same attempt again (never at the same time, and nothing is lost).
     */
    private void assertAttemptsSpent() {
        assertThat(seen).isSorted();
        assertThat(seen.stream().distinct()).containsExactly("attempt 1", "attempt 2", "attempt 3");
    }

    private static int workers(FormCase c) {
        return c.db() == TestDatabase.SQLITE ? 2 : 8; // SQLite: the test pool holds 4
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void underLoadEachJobCommitsItsWritesExactlyOnceInTheTransactionOfItsThread(FormCase c) {
        create(c);
        int jobs = 400;
        start(c, workers(c), (job, d) -> {
            effect(d, job);
            return Outcome.ack();
        });
        kit.publisher("tb", Job.class).publishAll(IntStream.range(0, jobs).mapToObj(Job::new).toList());
        InboxTestKit.await(() -> kit.count(table.name()) == 0, Duration.ofSeconds(60), () -> "drained");
        assertThat(kit.count("tb_effects")).as("one committed effect per job").isEqualTo(jobs);
        assertThat(kit.query("SELECT job FROM tb_effects GROUP BY job HAVING COUNT(*) > 1")).isEmpty();
        assertThat(outside).as("deliveries outside their thread's transaction").isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aRetryAndAnExceptionRollTheWritesBackAndSpendTheirAttempts(FormCase c) {
        create(c);
        start(c, 2, (job, d) -> {
            effect(d, job);
            seen.add("attempt " + d.attempt());
            return switch (d.attempt()) {
                case 1 -> Outcome.retry();
                case 2 -> throw new IllegalStateException("second attempt fails after writing");
                default -> Outcome.ack();
            };
        });
        kit.publisher("tb", Job.class).publish(new Job(1));
        InboxTestKit.await(() -> kit.count(table.name()) == 0, Duration.ofSeconds(20), () -> "acked: " + seen);
        assertAttemptsSpent();
        assertThat(kit.query("SELECT attempt FROM tb_effects"))
                .extracting(r -> ((Number) r.get("attempt")).intValue()).containsExactly(3);
        assertThat(outside).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aJobThatAlwaysFailsIsDeadLetteredOnItsLastAttemptWithNothingWritten(FormCase c) {
        create(c);
        start(c, 2, (job, d) -> {
            effect(d, job);
            seen.add("attempt " + d.attempt());
            throw new IllegalStateException("fails for ever");
        });
        kit.publisher("tb", Job.class).publish(new Job(5));
        InboxTestKit.await(() -> kit.count(DEAD) == 1, Duration.ofSeconds(20), () -> "dead-lettered: " + seen);
        assertAttemptsSpent();
        assertThat(kit.count(table.name())).isZero();
        assertThat(kit.count("tb_effects")).isZero();
        assertThat(((Number) kit.query("SELECT attempt FROM " + DEAD).get(0).get("attempt")).intValue()).isEqualTo(3);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rowLock")
    void aPayloadThatDoesNotDecodeIsDeadLetteredInsideTheClaimsTransaction(FormCase c) {
        create(c);
        start(c, 2, (job, d) -> Outcome.ack());
        TestDatabase db = c.db();
        db.execute("INSERT INTO " + table.name() + " (payload) VALUES (" + (db == TestDatabase.POSTGRES
                ? "convert_to('{\"n\":\"not a number\"}', 'UTF8')" : "'{\"n\":\"not a number\"}'") + ")");
        InboxTestKit.await(() -> kit.count(DEAD) == 1, Duration.ofSeconds(20), () -> "dead-lettered");
        assertThat(kit.count(table.name())).isZero();
        assertThat(String.valueOf(kit.query("SELECT error FROM " + DEAD).get(0).get("error")))
                .contains("cannot be decoded");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rowLock")
    void aShutdownWithHandlersInWorkLosesAndDoublesNothing(FormCase c) {
        create(c);
        int jobs = 40;
        Handler<Job> slow = (job, d) -> {
            effect(d, job);
            Thread.sleep(100);
            return Outcome.ack();
        };
        start(c, 4, slow);
        kit.publisher("tb", Job.class).publishAll(IntStream.range(0, jobs).mapToObj(Job::new).toList());
        InboxTestKit.await(() -> kit.count("tb_effects") >= 8, Duration.ofSeconds(20), () -> "some handled");
        ShutdownReport report = kit.shutdown();
        long left = kit.count(table.name());
        assertThat(kit.count("tb_effects") + left).as("handled once or still queued, not both").isEqualTo(jobs);
        assertThat(report.handlersCutOff()).isZero();
        kit.close();
        start(c, 4, slow);
        InboxTestKit.await(() -> kit.count(table.name()) == 0, Duration.ofSeconds(30), () -> "drained");
        assertThat(kit.count("tb_effects")).isEqualTo(jobs);
        assertThat(kit.query("SELECT job FROM tb_effects GROUP BY job HAVING COUNT(*) > 1")).isEmpty();
        assertThat(outside).isEmpty();
    }

    // ---- SQLite: a server's transaction begins DEFERRED, without the write lock ----

    /**
     * Two brokers on one SQLite database, one worker each, a one-second lease, delivery transactions
     * from {@code transactions} (null: the broker's own JDBC ones).
     */
    private static List<InboxTestKit> sqliteBrokers(dev.inbox.InboxSpec spec, DeliveryTransactions transactions,
            Handler<Job> handler) {
        TestDatabase db = TestDatabase.SQLITE;
        db.createLeaseTable("tb_jobs");
        db.execute("DROP TABLE IF EXISTS tb_effects",
                "CREATE TABLE tb_effects (job INTEGER NOT NULL, attempt INTEGER NOT NULL)");
        List<InboxTestKit> kits = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            kits.add(InboxTestKit.on(db.dataSource())
                    .configure(b -> {
                        b.pollInterval(Duration.ofMillis(100));
                        if (transactions != null) {
                            b.deliveryTransactions(transactions);
                        }
                    })
                    .subscribe(Subscription.of("tb", spec, Job.class, handler).transactional(true).workers(1)
                            .lease(Duration.ofSeconds(1)))
                    .start());
        }
        return kits;
    }

    /** Whether another connection could write now (it waits for no lock). */
    private static boolean anotherConnectionCanWrite() {
        try (Connection c = java.sql.DriverManager.getConnection(TestDatabase.SQLITE.url());
                Statement s = c.createStatement()) {
            s.execute("PRAGMA busy_timeout = 0");
            s.executeUpdate("DELETE FROM tb_effects WHERE 0 = 1");
            return true;
        } catch (SQLException e) {
            if (String.valueOf(e.getMessage()).contains("SQLITE_BUSY")) {
                return false;
            }
            throw new IllegalStateException(e);
        }
    }

    private Handler<Job> waitsLongerThanTheLeaseBeforeWriting(List<Boolean> othersCouldWrite) {
        return (job, d) -> {
            seen.add("job " + job.n() + " attempt " + d.attempt());
            othersCouldWrite.add(anotherConnectionCanWrite());
            Thread.sleep(2_500);
            effect(d, job);
            return Outcome.ack();
        };
    }

    @org.junit.jupiter.api.Test
    void onSqliteADeliveryInAServersTransactionHoldsTheWriteLockFromItsStartAndIsHandledOnce() {
        List<Boolean> othersCouldWrite = new CopyOnWriteArrayList<>();
        List<InboxTestKit> kits = sqliteBrokers(Job.leaseTable("tb_jobs"),
                new ThreadBoundTransactions(TestDatabase.SQLITE.dataSource()),
                waitsLongerThanTheLeaseBeforeWriting(othersCouldWrite));
        try {
            kits.get(0).publisher("tb", Job.class).publish(new Job(1));
            InboxTestKit.await(() -> kits.get(0).count("tb_jobs") == 0, Duration.ofSeconds(30), () -> "acked: " + seen);
            assertThat(seen).as("handled by one broker, once").containsExactly("job 1 attempt 1");
            assertThat(othersCouldWrite).as("the write lock is held before the handler runs").containsExactly(false);
            assertThat(kits.get(0).count("tb_effects")).isEqualTo(1);
        } finally {
            kits.forEach(InboxTestKit::close);
        }
    }

    @org.junit.jupiter.api.Test
    void onSqliteADeferredDeliveryKeepsItsLeaseUntilItWritesAndIsHandledOnce() {
        List<Boolean> othersCouldWrite = new CopyOnWriteArrayList<>();
        List<InboxTestKit> kits = sqliteBrokers(Job.leaseTable("tb_jobs").mode(SqliteMode.DEFERRED), null,
                waitsLongerThanTheLeaseBeforeWriting(othersCouldWrite));
        try {
            kits.get(0).publisher("tb", Job.class).publish(new Job(1));
            InboxTestKit.await(() -> kits.get(0).count("tb_jobs") == 0, Duration.ofSeconds(30), () -> "acked: " + seen);
            assertThat(seen).as("handled by one broker, once").containsExactly("job 1 attempt 1");
            assertThat(othersCouldWrite).as("DEFERRED: no lock before the first write").containsExactly(true);
            assertThat(kits.get(0).count("tb_effects")).isEqualTo(1);
        } finally {
            kits.forEach(InboxTestKit::close);
        }
    }

    @org.junit.jupiter.api.Test
    void onSqliteAServersTransactionRefusesADeclaredModeItCannotGive() {
        TestDatabase db = TestDatabase.SQLITE;
        db.createLeaseTable("tb_jobs");
        for (SqliteMode mode : new SqliteMode[] {SqliteMode.DEFERRED, SqliteMode.EXCLUSIVE}) {
            InboxTestKit refused = InboxTestKit.on(db.dataSource())
                    .configure(b -> b.deliveryTransactions(new ThreadBoundTransactions(db.dataSource())))
                    .subscribe(Subscription.of("tb", Job.leaseTable("tb_jobs").mode(mode), Job.class,
                            (job, d) -> Outcome.ack()).transactional(true));
            assertThatThrownBy(refused::start).isInstanceOfSatisfying(InboxException.class, e -> {
                assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                assertThat(e.getMessage()).contains("table tb_jobs declares SQLite mode " + mode,
                        "declare IMMEDIATE, or leave the mode unset");
            });
        }
    }

    // ---- isolation: a server's transaction runs at its data source's level ----

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "CONNECTOR_J", "MYSQL"})
    void onMysqlADataSourceAtRepeatableReadIsRefusedNamingTheSettingToChange(TestDatabase db) {
        db.createLeaseTable("tb_jobs");
        // The shared pool runs at the server's default, REPEATABLE READ; deliveries run at READ COMMITTED.
        InboxTestKit refused = InboxTestKit.on(db.dataSource())
                .configure(b -> b.deliveryTransactions(new ThreadBoundTransactions(db.dataSource())))
                .subscribe(Subscription.of("tb", Job.leaseTable("tb_jobs"), Job.class, (job, d) -> Outcome.ack())
                        .transactional(true));
        assertThatThrownBy(refused::start).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
            assertThat(e.getMessage()).contains("table tb_jobs run at READ_COMMITTED",
                    "data source gives its transactions REPEATABLE_READ",
                    "isolationLevel=\"TRANSACTION_READ_COMMITTED\" on <dataSource>");
        });
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "CONNECTOR_J", "MYSQL"})
    void aDeliveryRunsAtTheTablesIsolationWhereTheDataSourceGivesIt(TestDatabase db) {
        db.createLeaseTable("tb_jobs");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setMaximumPoolSize(8);
        config.setTransactionIsolation("TRANSACTION_REPEATABLE_READ");
        String query = db == TestDatabase.POSTGRES ? "SELECT current_setting('transaction_isolation')"
                : "SELECT @@tx_isolation";
        try (HikariDataSource repeatableRead = new HikariDataSource(config)) {
            dev.inbox.InboxSpec spec = Job.leaseTable("tb_jobs").isolation(Isolation.REPEATABLE_READ);
            kit = InboxTestKit.on(repeatableRead)
                    .configure(b -> b.pollInterval(Duration.ofMillis(50))
                            .deliveryTransactions(new ThreadBoundTransactions(repeatableRead)))
                    .subscribe(Subscription.of("tb", spec, Job.class, (job, d) -> {
                        try (Statement s = d.connection().createStatement(); ResultSet rs = s.executeQuery(query)) {
                            rs.next();
                            seen.add(rs.getString(1).toLowerCase().replace('-', ' '));
                        }
                        return Outcome.ack();
                    }).transactional(true))
                    .start();
            kit.publisher("tb", Job.class).publish(new Job(1));
            InboxTestKit.await(() -> seen.size() == 1, Duration.ofSeconds(20), () -> "delivered");
            kit.close();
            kit = null;
            assertThat(seen).containsExactly("repeatable read");
            // The same table on a data source at READ COMMITTED is refused.
            InboxTestKit refused = InboxTestKit.on(db.serverDataSource())
                    .configure(b -> b.deliveryTransactions(new ThreadBoundTransactions(db.serverDataSource())))
                    .subscribe(Subscription.of("tb", spec, Job.class, (job, d) -> Outcome.ack()).transactional(true));
            assertThatThrownBy(refused::start).isInstanceOf(InboxException.class)
                    .hasMessageContaining("run at REPEATABLE_READ, but the server's data source gives its transactions"
                            + " READ_COMMITTED");
        }
    }
}
