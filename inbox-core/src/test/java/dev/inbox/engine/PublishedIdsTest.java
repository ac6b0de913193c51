package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Cancellation;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.Published;
import dev.inbox.Publisher;
import dev.inbox.Subscription;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A publish answers the job's id: the one its handler's delivery carries and a cancel takes, for
 * one job, a batch of each size the drivers send their own way, a batch inside the caller's
 * transaction, a duplicate (the row holding its key), and an id the publisher gave.
 */
class PublishedIdsTest {
    private static final String TABLE = "published_ids";
    /** An {@code INT} id, which the drivers read as an Integer (and MariaDB's keys as a BigInteger). */
    private static final InboxSpec SPEC = Job.leaseTable(TABLE).uniqueKey(Column.of("unique_key"));

    private final List<InboxBroker> brokers = new ArrayList<>();

    @AfterEach
    void stop() {
        brokers.forEach(InboxBroker::shutdown);
    }

    private static void createTable(TestDatabase db, String id) {
        String ddl = switch (db) {
            case POSTGRES -> "CREATE TABLE " + TABLE + " (id " + (id == null ? "SERIAL" : id) + " PRIMARY KEY,"
                    + " attempt SMALLINT NOT NULL DEFAULT 1, locked_until TIMESTAMPTZ, payload BYTEA NOT NULL,"
                    + " unique_key VARCHAR(200))";
            // AUTOINCREMENT, as InboxSchema writes: without it the ids of rows already worked come again.
            case SQLITE -> "CREATE TABLE " + TABLE + " (id " + (id == null ? "INTEGER PRIMARY KEY AUTOINCREMENT"
                    : id + " PRIMARY KEY") + ","
                    + " attempt INTEGER NOT NULL DEFAULT 1, locked_until TEXT, payload BLOB NOT NULL,"
                    + " unique_key VARCHAR(200))";
            default -> "CREATE TABLE " + TABLE + " (id " + (id == null ? "INT AUTO_INCREMENT" : id) + " PRIMARY KEY,"
                    + " attempt SMALLINT NOT NULL DEFAULT 1, locked_until DATETIME(6) NULL, payload BLOB NOT NULL,"
                    + " unique_key VARCHAR(200)) ENGINE=InnoDB";
        };
        db.execute("DROP TABLE IF EXISTS " + TABLE, ddl, "CREATE UNIQUE INDEX " + TABLE + "_key ON " + TABLE
                + " (unique_key)");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB", "CONNECTOR_J"})
    void everyPublishAnswersTheIdItsHandlerSees(TestDatabase db) throws Exception {
        createTable(db, null);
        Map<Integer, Object> seen = new ConcurrentHashMap<>();
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).pollInterval(Duration.ofMillis(200))
                .subscribe(Subscription.of("ids", SPEC, Job.class, (job, delivery) -> {
                    seen.put(job.n(), delivery.id());
                    return Outcome.ack();
                }).workers(2))
                .connect();
        brokers.add(broker);
        Publisher<Job> publisher = broker.publisher("ids", Job.class);

        Map<Integer, Object> published = new ConcurrentHashMap<>();
        published.put(0, publisher.publish(new Job(0)).id());
        // Three rows: one multi-row insert, its ids returned by the driver (PostgreSQL, MySQL) or by RETURNING.
        record(published, 1, publisher.publishAll(jobs(1, 4)));
        // 200 rows: more than one statement takes (256) in one transaction.
        record(published, 4, publisher.publishAll(jobs(4, 204)));
        // Once those are worked and deleted, the ids of the next jobs are still new ones.
        Eventually.await(() -> seen.size() == 204, Duration.ofSeconds(30), () -> seen.size() + " of 204 handled");
        // A batch inside the caller's transaction, through its connection.
        try (Connection connection = db.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            record(published, 204, publisher.publishAll(connection, jobs(204, 210), PublishOptions.NONE));
            published.put(210, publisher.publish(connection, new Job(210)).id());
            connection.commit();
        }

        Eventually.await(() -> seen.size() == 211, Duration.ofSeconds(30), () -> seen.size() + " of 211 handled");
        assertThat(published.values()).as("whole-number ids are Longs").allMatch(Long.class::isInstance);
        assertThat(new HashSet<>(published.values())).hasSize(211);
        assertThat(published).isEqualTo(seen);
    }

    private static List<Job> jobs(int from, int to) {
        return IntStream.range(from, to).mapToObj(Job::new).toList();
    }

    private static void record(Map<Integer, Object> published, int first, List<Published> answers) {
        for (int i = 0; i < answers.size(); i++) {
            assertThat(answers.get(i).isNew()).isTrue();
            published.put(first + i, answers.get(i).id());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB", "CONNECTOR_J"})
    void aDuplicateNamesTheRowThatHoldsItsKeyAndACancelTakesTheId(TestDatabase db) throws Exception {
        createTable(db, null);
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).route("ids", SPEC).connect();
        brokers.add(broker);
        Publisher<Job> publisher = broker.publisher("ids", Job.class);
        PublishOptions key = PublishOptions.NONE.uniqueKey("report-7"); // no subscription takes it

        Published first = publisher.publish(new Job(1), key);
        assertThat(first.isNew()).isTrue();
        assertThat(first.id()).isInstanceOf(Long.class);
        Published again = publisher.publish(new Job(2), key);
        assertThat(again.isDuplicate()).isTrue();
        assertThat(again.id()).isEqualTo(first.id());
        try (Connection connection = db.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            assertThat(publisher.publish(connection, new Job(3), key)).isEqualTo(Published.duplicate(first.id()));
            connection.commit();
        }

        assertThat(broker.cancel("ids", first.id())).isEqualTo(Cancellation.CANCELLED);
        assertThat(db.count(TABLE)).isZero();
        Published free = publisher.publish(new Job(4), key);
        assertThat(free.isNew()).as("the key is free once its job is cancelled").isTrue();
        assertThat(db.count(TABLE)).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB", "CONNECTOR_J"})
    void anIdThePublisherGivesIsTheOneAnsweredAndADuplicateOfItNamesIt(TestDatabase db) {
        createTable(db, "VARCHAR(40)");
        InboxSpec given = InboxSpec.table(TABLE, Column.of("id")).attempt(Column.of("attempt").generated())
                .lease(Column.of("locked_until")).payload(Column.of("payload")).uniqueKey(Column.of("unique_key"));
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).route("ids", given).connect();
        brokers.add(broker);
        Publisher<Job> publisher = broker.publisher("ids", Job.class);

        PublishOptions order = PublishOptions.NONE.id("order-7").delay(Duration.ofHours(1));
        assertThat(publisher.publish(new Job(1), order)).isEqualTo(Published.inserted("order-7"));
        // The id is taken, the key is not: the duplicate names the id it was given.
        assertThat(publisher.publish(new Job(2), order.uniqueKey("report-8")))
                .isEqualTo(Published.duplicate("order-7"));
        assertThat(db.count(TABLE)).isEqualTo(1);
    }
}
