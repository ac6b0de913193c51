package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.spi.Dialect;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A host's clock set an hour forward or back while the lease form's handlers run (issue 52, point
 * 6). The broker keeps its time on the monotonic clock and does not follow a step the database's
 * clock does not confirm: it neither takes its own rows in work for ended leases nor writes
 * expiries an hour off for other brokers to take early, so no row is handled twice.
 */
class ClockStepTest {
    private static final int ROWS = 60;
    private static final Duration LEASE = Duration.ofSeconds(6);
    private static final Duration STEP = Duration.ofHours(1);

    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();
    /** How many times each job's handler has started. */
    private final Map<Integer, Integer> handlings = new ConcurrentHashMap<>();
    private final AtomicInteger started = new AtomicInteger();

    @AfterEach
    void stop() {
        brokers.forEach(InboxBroker::shutdown);
    }

    private static TestTable table(TestDatabase db) {
        TestTable table = TestTable.of("step_jobs", ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        return table;
    }

    /** The table with {@link #ROWS} jobs in it. */
    private TestTable published(TestDatabase db) {
        TestTable table = table(db);
        InboxBroker publisher = InboxBroker.fromUrl(db.url()).route("steps", table.spec()).connect();
        brokers.add(publisher);
        for (int n = 0; n < ROWS; n++) {
            publisher.publisher("steps", Job.class).publish(new Job(n));
        }
        return table;
    }

    /** A subscriber on a clock that runs with the host's until stepped. */
    private SettableClock subscribed(TestDatabase db, TestTable table) {
        SettableClock clock = SettableClock.running();
        subscriber(db, table, clock);
        return clock;
    }

    private InboxBroker subscriber(TestDatabase db, TestTable table, Clock clock) {
        return subscriber(InboxBroker.fromUrl(db.url()), table, clock);
    }

    /** {@code broker} on {@code clock}, six workers handling each job for 400 ms, counted. */
    private InboxBroker subscriber(InboxBroker broker, TestTable table, Clock clock) {
        InboxBroker connected = broker.clock(clock).lease(LEASE).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("steps", table.spec(), Job.class, (job, d) -> {
                    handlings.merge(job.n(), 1, Integer::sum);
                    started.incrementAndGet();
                    Thread.sleep(400);
                    return Outcome.ack();
                }).workers(6))
                .connect();
        brokers.add(connected);
        return connected;
    }

    private void awaitStarted(int handlers) {
        int from = started.get();
        Eventually.await(() -> started.get() >= from + handlers, Duration.ofSeconds(20), () -> "handlers started");
    }

    private void awaitAllHandled(TestDatabase db, TestTable table) {
        Eventually.await(() -> db.count(table.name()) == 0, Duration.ofSeconds(60),
                () -> db.count(table.name()) + " rows left; handled: " + handlings);
        assertThat(handlings).hasSize(ROWS);
        assertThat(handlings.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).sorted().toList())
                .as("the jobs of %d handled more than once", ROWS).isEmpty();
    }

    /** Each database with a step forward, and with a step back and forward again. */
    static Stream<Arguments> steps() {
        return Stream.of(TestDatabase.SQLITE, TestDatabase.POSTGRES, TestDatabase.MARIADB).flatMap(db -> Stream.of(
                Arguments.of(db, List.of(STEP)), Arguments.of(db, List.of(STEP.negated(), STEP))));
    }

    /**
     * Each step taken once twelve handlers have started since the last: a step forward would have the
     * broker take its own rows for ended leases, and the expiries written after a step back would
     * end an hour early once the clock is forward again.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("steps")
    void aBrokerWhoseClockStepsNeverTakesItsOwnRowsInWork(TestDatabase db, List<Duration> steps) {
        TestTable table = published(db);
        SettableClock clock = subscribed(db, table);
        for (Duration step : steps) {
            awaitStarted(12); // and claimed since the last step
            clock.step(step);
        }
        awaitAllHandled(db, table);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void twoBrokersWhoseClocksJumpApartNeverHandleOneRowTwice(TestDatabase db) {
        TestTable table = published(db);
        SettableClock ahead = subscribed(db, table);
        SettableClock behind = subscribed(db, table);
        awaitStarted(12);
        ahead.step(STEP);
        behind.step(STEP.negated());
        awaitAllHandled(db, table);
    }

    /**
     * A step the database's clock takes too (the database on the same host, or the host's clock
     * set right): followed, and no lease claimed for a lease meanwhile, so that the leases written
     * before the step, an hour short now, are extended first.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void aStepTheDatabasesClockConfirmsIsFollowedWithoutTakingARowInWork(TestDatabase db) {
        db.execute("DROP TABLE IF EXISTS step_offset", "CREATE TABLE step_offset (ms BIGINT NOT NULL)",
                "INSERT INTO step_offset (ms) VALUES (0)");
        TestTable table = published(db);
        SettableClock clock = SettableClock.running();
        Dialect real = db.dialect();
        // The database's clock as the dialect reads it, moved by the test's offset.
        Dialect stepping = (Dialect) Proxy.newProxyInstance(Dialect.class.getClassLoader(),
                new Class<?>[] {Dialect.class}, (proxy, method, args) -> method.getName().equals("clockQuery")
                        ? "SELECT (" + real.clockQuery().substring("SELECT ".length())
                                + ") + (SELECT ms FROM step_offset)"
                        : Delegation.call(real, method, args));
        List<String> log = LogCapture.during(() -> {
            subscriber(InboxBroker.fromUrl(db.url()).dialect(stepping), table, clock);
            awaitStarted(6);
            db.execute("UPDATE step_offset SET ms = " + STEP.toMillis());
            clock.step(STEP);
            awaitAllHandled(db, table);
        });
        assertThat(log).anySatisfy(line -> assertThat(line).contains("WARNING", "stepped forward 1 h",
                "database's clock", "agrees", "follows it"));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void aLeaseSubscriptionOnAClockFarFromTheDatabasesIsRefusedAtOpen(TestDatabase db) {
        TestTable table = table(db);
        Clock off = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-2));
        assertThatThrownBy(() -> subscriber(db, table, off)).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
            assertThat(e.getMessage()).contains("queue steps", "step_jobs", "the host's clock reads",
                    "the database's", "lease of 6 s", "NTP", "longer lease");
        });
        // An offset within half the lease is a skew the keeper absorbs (ClockSkewTest): not refused.
        subscriber(db, table, Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-2)));
    }
}
