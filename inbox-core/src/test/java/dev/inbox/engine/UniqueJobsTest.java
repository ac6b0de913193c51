package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Column;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.Published;
import dev.inbox.Publisher;
import dev.inbox.Subscription;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Unique jobs: a publish whose key a row holds inserts nothing and says so, under concurrency,
 * inside and outside the caller's transaction, on every database; a key is free again once its job
 * is acked or dead-lettered, and stays taken by a processed row unless the index leaves those out.
 */
class UniqueJobsTest {
    private static final String TABLE = "unique_jobs";
    private static final String MARKS = "unique_marks";
    private static final InboxSpec SPEC = Job.leaseTable(TABLE).uniqueKey(Column.of("unique_key"));

    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        brokers.forEach(InboxBroker::shutdown);
    }

    private static void createTable(TestDatabase db, String processedAt, boolean partialIndex) {
        String ddl = switch (db) {
            case POSTGRES -> "CREATE TABLE " + TABLE + " (id BIGSERIAL PRIMARY KEY, attempt SMALLINT NOT NULL DEFAULT 1,"
                    + " locked_until TIMESTAMPTZ, payload BYTEA NOT NULL, unique_key VARCHAR(200)"
                    + (processedAt == null ? "" : ", processed_at TIMESTAMPTZ") + ")";
            case SQLITE -> "CREATE TABLE " + TABLE + " (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                    + " attempt INTEGER NOT NULL DEFAULT 1, locked_until TEXT, payload BLOB NOT NULL,"
                    + " unique_key VARCHAR(200)" + (processedAt == null ? "" : ", processed_at TEXT") + ")";
            default -> "CREATE TABLE " + TABLE + " (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
                    + " attempt SMALLINT NOT NULL DEFAULT 1, locked_until DATETIME(6) NULL, payload BLOB NOT NULL,"
                    + " unique_key VARCHAR(200)" + (processedAt == null ? "" : ", processed_at DATETIME(6) NULL")
                    + ") ENGINE=InnoDB";
        };
        db.execute("DROP TABLE IF EXISTS " + TABLE, ddl, "CREATE UNIQUE INDEX " + TABLE + "_key ON " + TABLE
                + " (unique_key)" + (partialIndex ? " WHERE processed_at IS NULL" : ""));
    }

    private InboxBroker publishing(TestDatabase db, InboxSpec spec) {
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).route("unique", spec).connect();
        brokers.add(broker);
        return broker;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB", "CONNECTOR_J"})
    void eightThreadsOnTwoBrokersPublishingOneKeyMakeOneJobOutsideATransaction(TestDatabase db) throws Exception {
        createTable(db, null, false);
        List<Publisher<Job>> publishers = List.of(publishing(db, SPEC).publisher("unique", Job.class),
                publishing(db, SPEC).publisher("unique", Job.class));
        List<Published> answers = race(i -> publishers.get(i % 2).publish(new Job(i),
                PublishOptions.NONE.uniqueKey("nightly")));
        assertThat(answers.stream().filter(Published::isNew)).hasSize(1);
        assertThat(answers.stream().filter(Published::isDuplicate)).hasSize(999);
        assertThat(db.count(TABLE)).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB", "CONNECTOR_J"})
    void eightThreadsOnTwoBrokersPublishingOneKeyMakeOneJobInsideTheirTransactions(TestDatabase db)
            throws Exception {
        createTable(db, null, false);
        String marks = db == TestDatabase.POSTGRES ? "id SERIAL PRIMARY KEY, n INT"
                : db == TestDatabase.SQLITE ? "id INTEGER PRIMARY KEY, n INT" : "id INT AUTO_INCREMENT PRIMARY KEY, n INT";
        db.execute("DROP TABLE IF EXISTS " + MARKS, "CREATE TABLE " + MARKS + " (" + marks + ")");
        List<Publisher<Job>> publishers = List.of(publishing(db, SPEC).publisher("unique", Job.class),
                publishing(db, SPEC).publisher("unique", Job.class));
        List<Published> answers = race(i -> {
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                Published answer = publishers.get(i % 2).publish(c, new Job(i),
                        PublishOptions.NONE.uniqueKey("nightly"));
                // The caller's transaction goes on after a duplicate: its own write commits.
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("INSERT INTO " + MARKS + " (n) VALUES (" + i + ")");
                }
                c.commit();
                return answer;
            }
        });
        assertThat(answers.stream().filter(Published::isNew)).hasSize(1);
        assertThat(answers.stream().filter(Published::isDuplicate)).hasSize(999);
        assertThat(db.count(TABLE)).isEqualTo(1);
        assertThat(db.count(MARKS)).isEqualTo(1000);
    }

    private interface Publish {
        Published run(int i) throws Exception;
    }

    /** 1,000 publishes on 8 threads, every one answered. */
    private static List<Published> race(Publish publish) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Published>> futures = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                int n = i;
                futures.add(pool.submit(() -> publish.run(n)));
            }
            List<Published> answers = new ArrayList<>();
            for (Future<Published> f : futures) {
                answers.add(f.get());
            }
            return answers;
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void aKeyIsFreeAgainOnceItsJobIsAckedOrDeadLettered(TestDatabase db) throws Exception {
        createTable(db, null, false);
        String dead = TABLE + "_dead";
        db.execute("DROP TABLE IF EXISTS " + dead, "CREATE TABLE " + dead + " (id BIGINT PRIMARY KEY, payload "
                + (db == TestDatabase.POSTGRES ? "BYTEA" : "BLOB") + " NOT NULL, attempt INT NOT NULL, error TEXT,"
                + " failed_at " + (db == TestDatabase.POSTGRES ? "TIMESTAMPTZ" : db == TestDatabase.SQLITE ? "TEXT"
                        : "DATETIME(6)") + " NOT NULL)");
        List<Integer> handled = new CopyOnWriteArrayList<>();
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("unique", SPEC, Job.class, (job, d) -> {
                    handled.add(job.n());
                    return job.n() == 2 ? Outcome.drop("refused") : Outcome.ack();
                }).maxAttempts(5).deadLetter(dead))
                .connect();
        brokers.add(broker);
        Publisher<Job> publisher = broker.publisher("unique", Job.class);
        PublishOptions key = PublishOptions.NONE.uniqueKey("k");
        assertThat(publisher.publish(new Job(1), key)).matches(Published::isNew);
        Eventually.await(() -> handled.contains(1), Duration.ofSeconds(10), () -> "handled " + handled);
        Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(10), () -> "acked");
        assertThat(publisher.publish(new Job(2), key)).as("free after the ack").matches(Published::isNew);
        Eventually.await(() -> db.count(dead) == 1, Duration.ofSeconds(10), () -> "dead-lettered");
        assertThat(publisher.publish(new Job(3), key)).as("free after the dead letter").matches(Published::isNew);
        Eventually.await(() -> handled.contains(3), Duration.ofSeconds(10), () -> "handled " + handled);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void aProcessedRowKeepsItsKeyUnlessTheIndexLeavesProcessedRowsOut(TestDatabase db) throws Exception {
        for (boolean partial : db == TestDatabase.MARIADB ? new boolean[] {false} : new boolean[] {false, true}) {
            brokers.forEach(InboxBroker::shutdown);
            createTable(db, "processed_at", partial);
            InboxSpec spec = SPEC.processedAt(Column.of("processed_at"));
            AtomicInteger handled = new AtomicInteger();
            InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).pollInterval(Duration.ofMillis(100))
                    .subscribe(Subscription.of("unique", spec, Job.class, (job, d) -> {
                        handled.incrementAndGet();
                        return Outcome.ack();
                    }))
                    .connect();
            brokers.add(broker);
            Publisher<Job> publisher = broker.publisher("unique", Job.class);
            assertThat(publisher.publish(new Job(1), PublishOptions.NONE.uniqueKey("once"))).matches(Published::isNew);
            Eventually.await(() -> handled.get() == 1, Duration.ofSeconds(10), () -> "handled");
            Eventually.await(() -> processed(db) == 1, Duration.ofSeconds(10), () -> "processed");
            assertThat(publisher.publish(new Job(2), PublishOptions.NONE.uniqueKey("once")))
                    .as(partial ? "a partial index frees the key of a processed row" : "the processed row keeps its key")
                    .extracting(Published::isNew).isEqualTo(partial);
        }
    }

    private static long processed(TestDatabase db) {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + TABLE + " WHERE processed_at IS NOT NULL")) {
            rs.next();
            return rs.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aKeyPerPeriodCarriesThePeriodsStart() throws Exception {
        TestDatabase db = TestDatabase.SQLITE;
        createTable(db, null, false);
        SettableClock clock = new SettableClock("2026-11-30T14:25:00Z");
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).clock(clock).route("unique", SPEC).connect();
        brokers.add(broker);
        Publisher<Job> publisher = broker.publisher("unique", Job.class);
        PublishOptions hourly = PublishOptions.NONE.uniqueKey("digest", Duration.ofHours(1));
        assertThat(publisher.publish(new Job(1), hourly)).matches(Published::isNew);
        clock.set("2026-11-30T14:59:59.999Z");
        assertThat(publisher.publish(new Job(2), hourly)).as("the same hour").matches(Published::isDuplicate);
        clock.set("2026-11-30T15:00:00Z");
        assertThat(publisher.publish(new Job(3), hourly)).as("the next hour").matches(Published::isNew);
        List<String> keys = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT unique_key FROM " + TABLE + " ORDER BY id")) {
            while (rs.next()) {
                keys.add(rs.getString(1));
            }
        }
        assertThat(keys).containsExactly("digest@2026-11-30T14:00:00Z", "digest@2026-11-30T15:00:00Z");
    }

    @Test
    void aKeyWithoutItsColumnOrIndexOrForManyJobsIsRefusedNamingTheFix() {
        TestDatabase db = TestDatabase.SQLITE;
        db.createLeaseTable("plain_jobs");
        Publisher<Job> plain = publishing(db, Job.leaseTable("plain_jobs")).publisher("unique", Job.class);
        assertThatThrownBy(() -> plain.publish(new Job(1), PublishOptions.NONE.uniqueKey("k")))
                .isInstanceOfSatisfying(InboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(InboxException.Kind.DECLARATION))
                .hasMessageContaining("a unique key needs a unique-key column");
        assertThat(db.count("plain_jobs")).isZero();

        db.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                + " attempt INTEGER NOT NULL DEFAULT 1, locked_until TEXT, payload BLOB NOT NULL, unique_key TEXT)");
        assertThatThrownBy(() -> publishing(db, SPEC)).isInstanceOfSatisfying(InboxException.class,
                e -> assertThat(e.kind()).isEqualTo(InboxException.Kind.SCHEMA))
                .hasMessageContainingAll("no unique index", "CREATE UNIQUE INDEX unique_jobs_unique_key ON unique_jobs");

        createTable(db, null, false);
        Publisher<Job> unique = publishing(db, SPEC).publisher("unique", Job.class);
        assertThatThrownBy(() -> unique.publishAll(List.of(new Job(1), new Job(2)), PublishOptions.NONE.uniqueKey("k")))
                .isInstanceOfSatisfying(InboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(InboxException.Kind.DECLARATION))
                .hasMessageContaining("one unique key for 2 jobs");
        // Rows without a key never collide.
        unique.publishAll(List.of(new Job(1), new Job(2)));
        assertThat(unique.publish(new Job(3))).matches(Published::isNew);
        assertThat(db.count(TABLE)).isEqualTo(3);
    }
}
