package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.InboxException;
import dev.inbox.RecurringJob;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Recurring jobs across servers sharing one database: each occurrence is published once however
 * many brokers declare the job, a broker that was down publishes one catch-up occurrence, a changed
 * expression takes effect at the next start, and a payload that cannot be made is tried again, not lost.
 */
class RecurringJobsTest {
    private static final String TABLE = "recurring_jobs";
    private static final String SCHEDULE = "inbox_schedule";
    private static final Duration POLL = Duration.ofMillis(100);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();
    private final SettableClock testClock = new SettableClock("2026-11-30T12:00:00.500Z");

    @AfterEach
    void stop() {
        brokers.forEach(InboxBroker::shutdown);
    }

    private static void createTables(TestDatabase db) {
        db.createLeaseTable(TABLE);
        createSchedule(db, SCHEDULE, false);
    }

    /** Drops and creates schedule table {@code name}, with the optional {@code disabled_at} where asked. */
    static void createSchedule(TestDatabase db, String name, boolean disabledAt) {
        String time = switch (db) {
            case POSTGRES -> "TIMESTAMPTZ";
            case SQLITE -> "TEXT";
            default -> "DATETIME";
        };
        db.execute("DROP TABLE IF EXISTS " + name, "CREATE TABLE " + name + " (name VARCHAR(200) PRIMARY KEY,"
                + " cron VARCHAR(200) NOT NULL, next_due " + time + " NOT NULL"
                + (disabledAt ? ", disabled_at " + time + " NULL" : "") + ")");
    }

    private InboxBroker broker(TestDatabase db, Clock clock, RecurringJob<?> job) {
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).pollInterval(POLL).clock(clock)
                .route("ticks", Job.leaseTable(TABLE)).recurring(job).connect();
        brokers.add(broker);
        return broker;
    }

    private static RecurringJob<Job> everySecond() {
        return RecurringJob.of("tick", "* * * * * *", "ticks", Job.class, due -> new Job((int) due.getEpochSecond()));
    }

    /** The due times the published jobs carry, in publishing order. */
    private static List<Instant> published(TestDatabase db) throws Exception {
        return published(db, TABLE);
    }

    /** The due times the jobs published into {@code table} carry, in publishing order. */
    static List<Instant> published(TestDatabase db, String table) throws Exception {
        List<Instant> dues = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT payload FROM " + table + " ORDER BY id")) {
            while (rs.next()) {
                dues.add(Instant.ofEpochSecond(JSON.readValue(rs.getBytes(1), Job.class).n()));
            }
        }
        return dues;
    }

    /**
     * Every two seconds, not every second: a tick that runs later than the next occurrence publishes
     * the late one and then the first due after it (one catch-up, by design), and on the two
     * cores of CI a tick was once more than a second late (SQLite, 2026-12-01).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void twoServersWithTheSameScheduleEveryTwoSecondsPublishEachOccurrenceOnce(TestDatabase db) throws Exception {
        createTables(db);
        Clock host = Clock.systemUTC();
        RecurringJob<Job> everyTwoSeconds = everySecond().cron("*/2 * * * * *");
        broker(db, host, everyTwoSeconds);
        broker(db, host, everyTwoSeconds);
        Instant start = Instant.now();
        Thread.sleep(20_000);
        brokers.forEach(InboxBroker::shutdown);
        Instant end = Instant.now();

        List<Instant> dues = published(db);
        assertThat(dues).doesNotHaveDuplicates();
        // Every two seconds between the first and the last occurrence, once: none skipped, none twice.
        assertThat(dues).isSorted();
        Instant first = dues.get(0);
        for (int i = 0; i < dues.size(); i++) {
            assertThat(dues.get(i)).isEqualTo(first.plusSeconds(2L * i));
        }
        assertThat(first).isBetween(start.minusSeconds(1), start.plusSeconds(3));
        assertThat(dues.get(dues.size() - 1)).isBetween(end.minusSeconds(3), end);
        assertThat(dues).hasSizeGreaterThanOrEqualTo(9);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void aServerDownOverSeveralOccurrencesPublishesOneCatchUp(TestDatabase db) throws Exception {
        createTables(db);
        RecurringJob<Job> everyMinute = RecurringJob.of("minutely", "0 * * * * *", "ticks", Job.class,
                due -> new Job((int) due.getEpochSecond()));
        InboxBroker first = broker(db, testClock, everyMinute);
        testClock.set("2026-11-30T12:01:00.200Z");
        Eventually.await(() -> db.count(TABLE) == 1, Duration.ofSeconds(10), () -> "the 12:01 occurrence");
        first.shutdown();

        testClock.set("2026-11-30T12:05:30Z"); // down over 12:02, 12:03, 12:04 and 12:05
        broker(db, testClock, everyMinute);
        Eventually.await(() -> db.count(TABLE) == 2, Duration.ofSeconds(10), () -> "the catch-up");
        Thread.sleep(10 * POLL.toMillis());
        assertThat(db.count(TABLE)).as("one catch-up, not one per missed occurrence").isEqualTo(2);
        testClock.set("2026-11-30T12:06:00.100Z");
        Eventually.await(() -> db.count(TABLE) == 3, Duration.ofSeconds(10), () -> "the 12:06 occurrence");
        assertThat(published(db)).containsExactly(Instant.parse("2026-11-30T12:01:00Z"),
                Instant.parse("2026-11-30T12:02:00Z"), Instant.parse("2026-11-30T12:06:00Z"));
    }

    @Test
    void aChangedExpressionTakesEffectAtTheNextStart() throws Exception {
        TestDatabase db = TestDatabase.POSTGRES;
        createTables(db);
        InboxBroker first = broker(db, testClock, RecurringJob.of("report", "0 * * * * *", "ticks", Job.class,
                due -> new Job(1)));
        assertThat(scheduleRow(db)).isEqualTo("0 * * * * * UTC|2026-11-30T12:01:00Z");
        first.shutdown();
        broker(db, testClock, RecurringJob.of("report", "0 */10 * * * *", "ticks", Job.class, due -> new Job(1))
                .zone(ZoneId.of("Europe/Paris")));
        assertThat(scheduleRow(db)).isEqualTo("0 */10 * * * * Europe/Paris|2026-11-30T12:10:00Z");
    }

    /** During a rolling deployment the server that started last runs the job; the other publishes nothing. */
    @Test
    void aServerWithAnOlderExpressionLeavesTheJobToTheOneThatWroteTheTable() throws Exception {
        TestDatabase db = TestDatabase.SQLITE;
        createTables(db);
        testClock.set("2026-11-30T12:00:30Z");
        broker(db, testClock, RecurringJob.of("report", "0 * * * * *", "ticks", Job.class,
                due -> new Job((int) due.getEpochSecond())));
        broker(db, testClock, RecurringJob.of("report", "0 */10 * * * *", "ticks", Job.class,
                due -> new Job((int) due.getEpochSecond())));
        testClock.set("2026-11-30T12:01:00.200Z"); // the older expression's occurrence
        Thread.sleep(10 * POLL.toMillis());
        assertThat(db.count(TABLE)).as("the older expression publishes nothing").isZero();
        testClock.set("2026-11-30T12:10:00.200Z");
        Eventually.await(() -> db.count(TABLE) == 1, Duration.ofSeconds(10), () -> "the newer expression's");
        Thread.sleep(10 * POLL.toMillis());
        assertThat(published(db)).containsExactly(Instant.parse("2026-11-30T12:10:00Z"));
    }

    private static String scheduleRow(TestDatabase db) throws Exception {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT cron, next_due FROM " + SCHEDULE + " WHERE name = 'report'")) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1) + "|" + db.dialect().readTime(rs, 2);
        }
    }

    @Test
    void aPayloadThatCannotBeMadeIsTriedAgainNotLost() throws Exception {
        TestDatabase db = TestDatabase.SQLITE;
        createTables(db);
        AtomicInteger calls = new AtomicInteger();
        broker(db, testClock, RecurringJob.of("flaky", "0 * * * * *", "ticks", Job.class, due -> {
            if (calls.incrementAndGet() < 3) {
                throw new IllegalStateException("not yet");
            }
            return new Job((int) due.getEpochSecond());
        }));
        testClock.set("2026-11-30T12:01:00.200Z");
        Eventually.await(() -> db.count(TABLE) == 1, Duration.ofSeconds(10), () -> "published after two failures");
        assertThat(calls.get()).isEqualTo(3);
        assertThat(published(db)).containsExactly(Instant.parse("2026-11-30T12:01:00Z"));
    }

    @Test
    void aDisabledJobWritesAndPublishesNothing() throws Exception {
        TestDatabase db = TestDatabase.SQLITE;
        createTables(db);
        broker(db, Clock.systemUTC(), everySecond().enabled(false));
        Thread.sleep(1500);
        assertThat(db.count(TABLE)).isZero();
        assertThat(db.count(SCHEDULE)).isZero();
    }

    @Test
    void badDeclarationsAreRefusedAtConnectNamingTheFix() {
        TestDatabase db = TestDatabase.SQLITE;
        createTables(db);
        assertRefused(() -> broker(db, testClock, everySecond().cron("*/5 * * * *")), InboxException.Kind.DECLARATION,
                "recurring job tick: the cron expression \"*/5 * * * *\"", "six fields, seconds first");
        assertRefused(() -> broker(db, testClock, RecurringJob.of("x", "0 0 0 30 2 *", "ticks", Job.class,
                due -> new Job(1))), InboxException.Kind.DECLARATION, "has no time to come");
        assertRefused(() -> broker(db, testClock, RecurringJob.of("x", "0 * * * * *", "elsewhere", Job.class,
                due -> new Job(1))), InboxException.Kind.DECLARATION, "queue elsewhere, which this broker neither");
        assertRefused(() -> InboxBroker.fromDataSource(db.dataSource()).recurring(everySecond())
                .recurring(everySecond()), InboxException.Kind.DECLARATION, "declared twice");
        db.execute("DROP TABLE " + SCHEDULE);
        assertRefused(() -> broker(db, testClock, everySecond()), InboxException.Kind.SCHEMA,
                "the schedule table inbox_schedule", "CREATE TABLE inbox_schedule (name VARCHAR(200) PRIMARY KEY");
        assertThat(db.count(TABLE)).isZero();
    }

    private static void assertRefused(Runnable declaration, InboxException.Kind kind, String... message) {
        assertThatThrownBy(declaration::run).isInstanceOfSatisfying(InboxException.class,
                e -> assertThat(e.kind()).isEqualTo(kind)).hasMessageContainingAll(message);
    }
}
