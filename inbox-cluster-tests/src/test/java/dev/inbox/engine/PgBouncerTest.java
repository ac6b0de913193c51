package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ClaimForm;
import dev.inbox.ConnectionPooler;
import dev.inbox.Delivery;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Isolation;
import dev.inbox.Outcome;
import dev.inbox.Publisher;
import dev.inbox.Subscription;
import dev.inbox.schema.InboxSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * PostgreSQL through a real PgBouncer ({@code scripts/pgbouncer.sh}), declared to the broker with
 * {@code connectionPooler}. Through transaction pooling ({@code prepareThreshold=0}) the lease and
 * row lock forms drain, a transactional handler writing one effect row per job, each effect once;
 * the advisory form, a table's declared isolation and a driver that prepares statements on the
 * server are refused at connect, naming what to change; a subscription that listens polls instead,
 * with one WARNING. Through session pooling every form drains.
 */
class PgBouncerTest {
    private static final int JOBS = 2_000;
    private static final int WORKERS = 4;
    private static final String TABLE = "bouncer_jobs";
    private static final String EFFECTS = "bouncer_effects";
    private static PgBouncer bouncer;

    @BeforeAll
    static void startPgBouncer() {
        bouncer = PgBouncer.fromBuild();
        bouncer.start();
        System.out.println("PGBOUNCER version=\"" + bouncer.version() + "\"");
    }

    @AfterAll
    static void stopPgBouncer() {
        if (bouncer != null) {
            bouncer.stop();
        }
    }

    static Stream<Arguments> drains() {
        return Stream.of(Arguments.of(ConnectionPooler.TRANSACTION, ClaimForm.LEASE),
                Arguments.of(ConnectionPooler.TRANSACTION, ClaimForm.ROW_LOCK),
                Arguments.of(ConnectionPooler.SESSION, ClaimForm.LEASE),
                Arguments.of(ConnectionPooler.SESSION, ClaimForm.ROW_LOCK),
                Arguments.of(ConnectionPooler.SESSION, ClaimForm.ADVISORY));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("drains")
    void aTransactionalHandlerWritesEveryEffectOnceThroughThePooler(ConnectionPooler pooler, ClaimForm form)
            throws Exception {
        createTables(form);
        Map<Integer, AtomicInteger> calls = new ConcurrentHashMap<>();
        String url = pooler == ConnectionPooler.TRANSACTION ? bouncer.transactionUrl() : bouncer.sessionUrl();
        long start = System.nanoTime();
        InboxBroker broker = InboxBroker.fromUrl(url).connectionPooler(pooler).connectionLimit(WORKERS + 6)
                .pollInterval(Duration.ofMillis(200)).lease(Duration.ofSeconds(10))
                .subscribe(Subscription.of("bouncer", spec(form), Job.class, (Job job, Delivery delivery) -> {
                    calls.computeIfAbsent(job.n(), n -> new AtomicInteger()).incrementAndGet();
                    effect(job, delivery);
                    return Outcome.ack();
                }).workers(WORKERS).transactional(true))
                .connect();
        try {
            Publisher<Job> publisher = broker.publisher("bouncer", Job.class);
            for (int n = 0; n < JOBS; n++) {
                publisher.publish(new Job(n));
            }
            Eventually.await(() -> rows(TABLE) == 0 && calls.size() == JOBS, Duration.ofSeconds(60),
                    () -> "not drained: " + rows(TABLE) + " rows left, " + calls.size() + " jobs handled");
        } finally {
            broker.shutdown(Duration.ofSeconds(10));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Map<Integer, Integer> effects = effects();
        long lost = JOBS - effects.size();
        long doubled = effects.values().stream().filter(times -> times > 1).count();
        long redelivered = calls.values().stream().filter(times -> times.get() > 1).count();
        System.out.printf("PGBOUNCER mode=%s form=%s jobs=%d effects=%d lost=%d doubled=%d redelivered=%d"
                        + " seconds=%.1f%n", pooler.name().toLowerCase(), form.name().toLowerCase(), JOBS,
                effects.values().stream().mapToInt(Integer::intValue).sum(), lost, doubled, redelivered, seconds);
        assertThat(lost).as("jobs without their effect").isZero();
        assertThat(doubled).as("jobs whose effect was written twice").isZero();
    }

    @Test
    void theAdvisoryFormIsRefusedThroughTransactionPooling() throws SQLException {
        createTables(ClaimForm.ADVISORY);
        assertThatThrownBy(() -> InboxBroker.fromUrl(bouncer.transactionUrl())
                .connectionPooler(ConnectionPooler.TRANSACTION)
                .subscribe(Subscription.of("bouncer", spec(ClaimForm.ADVISORY), Job.class, PgBouncerTest::ack))
                .connect())
                .isInstanceOf(InboxException.class)
                .hasMessageContaining("DECLARATION")
                .hasMessageContaining("advisory lock form")
                .hasMessageContaining("pool_mode=transaction")
                .hasMessageContaining("use the lease or row lock form")
                .hasMessageContaining("session pooling");
    }

    @Test
    void statementsPreparedOnTheServerAreRefusedThroughTransactionPooling() throws SQLException {
        createTables(ClaimForm.ROW_LOCK);
        String serverPrepares = bouncer.transactionUrl().replace("&prepareThreshold=0", "");
        assertThat(serverPrepares).doesNotContain("prepareThreshold");
        assertThatThrownBy(() -> InboxBroker.fromUrl(serverPrepares).connectionPooler(ConnectionPooler.TRANSACTION)
                .subscribe(Subscription.of("bouncer", spec(ClaimForm.ROW_LOCK), Job.class, PgBouncerTest::ack))
                .connect())
                .isInstanceOf(InboxException.class)
                .hasMessageContaining("DECLARATION")
                .hasMessageContaining("prepareThreshold=5")
                .hasMessageContaining("add prepareThreshold=0")
                .hasMessageContaining("pool_mode=transaction");
    }

    @Test
    void aDeclaredIsolationIsRefusedThroughTransactionPooling() throws SQLException {
        createTables(ClaimForm.ROW_LOCK);
        InboxSpec repeatable = spec(ClaimForm.ROW_LOCK).isolation(Isolation.REPEATABLE_READ);
        assertThatThrownBy(() -> InboxBroker.fromUrl(bouncer.transactionUrl())
                .connectionPooler(ConnectionPooler.TRANSACTION)
                .subscribe(Subscription.of("bouncer", repeatable, Job.class, PgBouncerTest::ack))
                .connect())
                .isInstanceOf(InboxException.class)
                .hasMessageContaining("isolation REPEATABLE_READ")
                .hasMessageContaining("SET SESSION CHARACTERISTICS")
                .hasMessageContaining("default_transaction_isolation");
    }

    @Test
    void aListeningSubscriptionPollsThroughTransactionPoolingWithOneWarning() throws Exception {
        createTables(ClaimForm.LEASE);
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Logger rules = Logger.getLogger("dev.inbox.internal.broker.PoolerRules");
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(record);
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        rules.addHandler(capture);
        Map<Integer, AtomicInteger> calls = new ConcurrentHashMap<>();
        InboxBroker broker;
        try {
            broker = InboxBroker.fromUrl(bouncer.transactionUrl()).connectionPooler(ConnectionPooler.TRANSACTION)
                    .pollInterval(Duration.ofMillis(500)).listenNotify(true)
                    .subscribe(Subscription.of("bouncer", spec(ClaimForm.LEASE), Job.class, (Job job, Delivery d) -> {
                        calls.computeIfAbsent(job.n(), n -> new AtomicInteger()).incrementAndGet();
                        return Outcome.ack();
                    }))
                    .connect();
        } finally {
            rules.removeHandler(capture);
        }
        try {
            assertThat(warnings).as("warnings at connect").hasSize(1);
            assertThat(warnings.get(0).getMessage()).contains("listen-notify").contains("poll interval")
                    .contains("pool_mode=transaction");
            assertThat(listeningSessions()).as("sessions on the database whose last statement was a LISTEN").isZero();
            broker.publisher("bouncer", Job.class).publish(new Job(7));
            Eventually.await(() -> calls.containsKey(7), Duration.ofSeconds(10), () -> "job 7 was not handled");
            assertThat(broker.health().ready()).as("ready, with no listener to report on").isTrue();
            assertThat(broker.health().listener()).as("the listener's problem").isEmpty();
        } finally {
            broker.shutdown(Duration.ofSeconds(10));
        }
    }

    private static Outcome ack(Job job, Delivery delivery) {
        return Outcome.ack();
    }

    private static void effect(Job job, Delivery delivery) throws SQLException {
        try (PreparedStatement ps = delivery.connection().prepareStatement("INSERT INTO " + EFFECTS + " (n) VALUES (?)")) {
            ps.setInt(1, job.n());
            ps.executeUpdate();
        }
    }

    private static InboxSpec spec(ClaimForm form) {
        return DrainTables.spec(TABLE, form);
    }

    /** The queue table and the effects, afresh, on the pooled database reached directly. */
    private static void createTables(ClaimForm form) throws SQLException {
        try (Connection c = DriverManager.getConnection(bouncer.directUrl()); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            for (String sql : InboxSchema.of("postgresql").queue(spec(form))) {
                s.execute(sql);
            }
            DrainTables.create(s, EFFECTS);
        }
    }

    private static long rows(String table) {
        return DrainTables.rows(bouncer.directUrl(), table);
    }

    private static Map<Integer, Integer> effects() throws SQLException {
        return DrainTables.byJob(bouncer.directUrl(), EFFECTS);
    }

    private static long listeningSessions() throws SQLException {
        try (Connection c = DriverManager.getConnection(bouncer.directUrl()); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN %'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The payload. */
    record Job(int n) {}
}
