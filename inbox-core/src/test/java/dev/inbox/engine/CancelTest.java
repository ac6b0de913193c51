package dev.inbox.engine;

import static dev.inbox.engine.TestTable.Feature.ATTEMPT;
import static dev.inbox.engine.TestTable.Feature.RETRY_AFTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Cancellation;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.Publisher;
import dev.inbox.Subscription;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Cancelling a job, in every claim form on every database: a waiting job (due or delayed) is
 * deleted and never handled; a job a delivery holds (on another broker, standing for another
 * server) is reported in work and left to its handler; a job that is not there is not found.
 */
class CancelTest {
    private static final String TABLE = "cancel_jobs";

    private final List<Integer> handled = new CopyOnWriteArrayList<>();
    private final CountDownLatch holding = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        release.countDown();
        brokers.forEach(InboxBroker::shutdown);
    }

    static List<FormCase> cases() {
        return FormCase.all().toList();
    }

    /** Creates {@code table} and connects a broker that only routes to it, as an operator's would. */
    private InboxBroker operator(TestDatabase db, TestTable table) {
        table.create(db);
        InboxBroker operator = InboxBroker.fromDataSource(db.dataSource()).route("cancel", table.spec()).connect();
        brokers.add(operator);
        return operator;
    }

    /**
     * An id given as text is read as the table's ids are, the same on every database. Before,
     * "abc" failed with PostgreSQL's own error, and MariaDB read it as job 0.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void anIdGivenAsTextIsReadAsTheTablesIdsAre(FormCase c) throws Exception {
        TestDatabase db = c.db();
        TestTable table = TestTable.of(TABLE, c.form(), ATTEMPT, RETRY_AFTER);
        InboxBroker operator = operator(db, table);
        operator.publisher("cancel", Job.class).publish(new Job(1));
        String id = String.valueOf(lastId(db));
        for (String bad : List.of("abc", "1e3", "99999999999999999999")) {
            assertThatThrownBy(() -> operator.cancel("cancel", bad)).isInstanceOfSatisfying(InboxException.class, e -> {
                assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                assertThat(e.getMessage()).contains("job id '" + bad + "' is not a whole number", TABLE);
            });
        }
        assertThat(operator.cancel("cancel", " " + id + " ")).isEqualTo(Cancellation.CANCELLED);
        assertThat(db.count(TABLE)).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aWaitingJobIsCancelledAJobInWorkIsLeftToItsHandler(FormCase c) throws Exception {
        TestDatabase db = c.db();
        TestTable table = TestTable.of(TABLE, c.form(), ATTEMPT, RETRY_AFTER);
        InboxBroker operator = operator(db, table);
        Publisher<Job> publisher = operator.publisher("cancel", Job.class);

        publisher.publish(new Job(1));
        long due = lastId(db);
        publisher.publish(new Job(2), PublishOptions.NONE.delay(Duration.ofHours(1)));
        long delayed = lastId(db);
        assertThat(operator.cancel("cancel", due)).isEqualTo(Cancellation.CANCELLED);
        assertThat(operator.cancel("cancel", delayed)).as("a delayed job").isEqualTo(Cancellation.CANCELLED);
        assertThat(operator.cancel("cancel", due)).as("cancelled before").isEqualTo(Cancellation.NOT_FOUND);
        assertThat(operator.cancel("cancel", 987_654_321L)).isEqualTo(Cancellation.NOT_FOUND);
        assertThat(db.count(TABLE)).isZero();

        InboxBroker worker = InboxBroker.fromDataSource(db.dataSource()).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("cancel", table.spec(), Job.class, (job, d) -> {
                    holding.countDown();
                    release.await();
                    handled.add(job.n());
                    return Outcome.ack();
                }))
                .connect();
        brokers.add(worker);
        publisher.publish(new Job(3));
        long inWork = lastId(db);
        assertThat(holding.await(10, TimeUnit.SECONDS)).as("job 3 in work").isTrue();
        assertThat(operator.cancel("cancel", inWork)).isEqualTo(Cancellation.IN_WORK);
        release.countDown();
        Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(10), () -> "job 3 settled");
        assertThat(handled).as("handled once, as its handler decided").containsExactly(3);
        assertThat(operator.cancel("cancel", inWork)).isEqualTo(Cancellation.NOT_FOUND);

        assertThatThrownBy(() -> operator.cancel("nowhere", 1L)).isInstanceOfSatisfying(InboxException.class,
                e -> assertThat(e.kind()).isEqualTo(InboxException.Kind.NOT_FOUND));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aProcessedRowCountsAsHandled(FormCase c) throws Exception {
        TestDatabase db = c.db();
        TestTable table = TestTable.of(TABLE, c.form(), ATTEMPT, TestTable.Feature.PROCESSED_AT);
        table.create(db);
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("cancel", table.spec(), Job.class, (job, d) -> {
                    handled.add(job.n());
                    return Outcome.ack();
                }))
                .connect();
        brokers.add(broker);
        broker.publisher("cancel", Job.class).publish(new Job(1));
        long id = lastId(db);
        Eventually.await(() -> db.count(TABLE + " WHERE processed_at IS NOT NULL") == 1, Duration.ofSeconds(10),
                () -> "processed");
        assertThat(broker.cancel("cancel", id)).isEqualTo(Cancellation.NOT_FOUND);
        assertThat(db.count(TABLE)).as("the processed row stays").isEqualTo(1);
    }

    private static long lastId(TestDatabase db) throws Exception {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT MAX(id) FROM " + TABLE)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
