package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.schema.InboxSchema;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two brokers that describe one queue table differently take each other's rows: another claim
 * form misses the other's claims (a lease form's row is taken again by the row lock form, which
 * never reads the lease), another payload type dead-letters the other's rows. With the subscriber
 * table, the second broker is refused at connect, naming both declarations; brokers that declare
 * the table alike share it, and a broker gone without a shutdown holds it for a few minutes only.
 */
class SubscriberTableTest {
    private static final String SUBSCRIBERS = "subscribers_test";

    record Note(String text) {}

    private static TestTable leaseTable(TestDatabase db, String name) throws Exception {
        TestTable table = TestTable.of(name, ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        db.execute("DROP TABLE IF EXISTS " + SUBSCRIBERS);
        try (Connection connection = db.dataSource().getConnection()) {
            db.execute(InboxSchema.of(connection).subscriberTable(SUBSCRIBERS).toArray(String[]::new));
        }
        return table;
    }

    private static <T> InboxBroker broker(TestDatabase db, Subscription<T> subscription) {
        return InboxBroker.fromUrl(db.url()).subscriberTable(SUBSCRIBERS).pollInterval(Duration.ofMillis(50))
                .subscribe(subscription);
    }

    private static Subscription<Job> jobs(TestTable table, Map<Integer, AtomicInteger> handled) {
        return Subscription.of("shared", table.spec(), Job.class, (job, d) -> {
            handled.computeIfAbsent(job.n(), n -> new AtomicInteger()).incrementAndGet();
            return Outcome.ack();
        });
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "CONNECTOR_J", "MYSQL"})
    void aBrokerThatReadsALeaseTableWithoutItsLeaseIsRefusedWhileTheLeaseBrokerRuns(TestDatabase db)
            throws Exception {
        TestTable leased = leaseTable(db, "subscribers_forms");
        Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
        InboxBroker first = broker(db, jobs(leased, handled)).connect();
        try {
            TestTable withoutLease = TestTable.of("subscribers_forms", ClaimForm.ROW_LOCK, TestTable.Feature.ATTEMPT);
            InboxBroker second = broker(db, jobs(withoutLease, handled));
            assertThatThrownBy(second::connect).isInstanceOf(InboxException.class)
                    .satisfies(e -> assertThat(((InboxException) e).kind()).isEqualTo(InboxException.Kind.DECLARATION))
                    .hasMessageContaining("table subscribers_forms")
                    .hasMessageContaining("LEASE form, payload " + Job.class.getName())
                    .hasMessageContaining("ROW_LOCK form, payload " + Job.class.getName())
                    .hasMessageContaining(SUBSCRIBERS);
            assertThat(db.count(SUBSCRIBERS)).as("the refused broker left no declaration").isEqualTo(1);
        } finally {
            first.shutdown();
        }
        assertThat(db.count(SUBSCRIBERS)).as("a shutdown deletes the broker's declarations").isZero();
        InboxBroker later = broker(db, jobs(TestTable.of("subscribers_forms", ClaimForm.ROW_LOCK,
                TestTable.Feature.ATTEMPT), handled)).connect();
        later.shutdown();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aBrokerWithAnotherPayloadTypeIsRefused(TestDatabase db) throws Exception {
        TestTable table = leaseTable(db, "subscribers_payloads");
        InboxBroker first = broker(db, jobs(table, new ConcurrentHashMap<>())).connect();
        try {
            InboxBroker second = broker(db, Subscription.of("notes", table.spec(), Note.class,
                    (note, d) -> Outcome.ack()));
            assertThatThrownBy(second::connect).isInstanceOf(InboxException.class)
                    .hasMessageContaining("payload " + Job.class.getName())
                    .hasMessageContaining("payload " + Note.class.getName())
                    .hasMessageContaining("queue notes");
        } finally {
            first.shutdown();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void brokersThatDeclareATableAlikeShareIt(TestDatabase db) throws Exception {
        TestTable table = leaseTable(db, "subscribers_alike");
        Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
        InboxBroker first = broker(db, jobs(table, handled)).connect();
        InboxBroker second = broker(db, jobs(table, handled)).connect();
        try {
            assertThat(db.count(SUBSCRIBERS)).isEqualTo(2);
            for (int n = 0; n < 20; n++) {
                (n % 2 == 0 ? first : second).publisher("shared", Job.class).publish(new Job(n));
            }
            Eventually.await(() -> db.count(table.name()) == 0, Duration.ofSeconds(30), () -> "handled: " + handled);
        } finally {
            first.shutdown();
            second.shutdown();
        }
        assertThat(handled).hasSize(20);
        assertThat(handled.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aDeclarationNotSeenForMinutesIsTakenForGone(TestDatabase db) throws Exception {
        TestTable table = leaseTable(db, "subscribers_stale");
        // Its clock writes every refresh long ago, as a broker killed minutes ago left it (with a
        // lease long enough for a clock that far off the database's to open).
        InboxBroker gone = broker(db, jobs(table, new ConcurrentHashMap<>()))
                .clock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10))).lease(Duration.ofMinutes(30))
                .connect();
        try {
            InboxBroker next = broker(db, Subscription.of("notes", table.spec(), Note.class,
                    (note, d) -> Outcome.ack())).connect();
            assertThat(db.count(SUBSCRIBERS)).as("the stale declaration was deleted").isEqualTo(1);
            next.shutdown();
        } finally {
            gone.shutdown();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "SQLITE"})
    void withoutTheSubscriberTableNothingIsChecked(TestDatabase db) throws Exception {
        TestTable table = leaseTable(db, "subscribers_absent");
        db.execute("DROP TABLE " + SUBSCRIBERS);
        InboxBroker first = broker(db, jobs(table, new ConcurrentHashMap<>())).connect();
        try {
            InboxBroker second = broker(db, Subscription.of("notes", table.spec(), Note.class,
                    (note, d) -> Outcome.ack())).connect();
            second.shutdown();
        } finally {
            first.shutdown();
        }
    }
}
