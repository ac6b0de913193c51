package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.InboxException.Kind;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The lifecycle's startup order: every subscription is checked and prepared, and listening set
 * up, before any of them starts. When the second of two subscriptions fails to open, the first has
 * claimed no row and called no handler, a pool the broker built is closed, and the application's
 * pool is left as it was, every connection given back.
 */
class StartupOrderTest {
    private static final String FIRST = "startup_first_jobs";
    /** Longer than any of the databases takes, so the name fails when the table is opened. */
    private static final String TOO_LONG = "startup_" + "x".repeat(130);

    private final AtomicInteger handled = new AtomicInteger();

    private Subscription<Job> first() {
        return Subscription.of("first", Job.leaseTable(FIRST), Job.class, (job, d) -> {
            handled.incrementAndGet();
            return Outcome.ack();
        });
    }

    private static Subscription<Job> second(InboxSpec table) {
        return Subscription.of("second", table, Job.class, (job, d) -> Outcome.ack());
    }

    /** Five rows for the first subscription, which it would claim at once if it had started. */
    private static void fill(TestDatabase db) {
        db.createLeaseTable(FIRST);
        for (int i = 0; i < 5; i++) {
            db.execute("INSERT INTO " + FIRST + " (payload) VALUES (" + (db == TestDatabase.POSTGRES
                    ? "CAST('{\"n\":1}' AS BYTEA)" : "'{\"n\":1}'") + ")");
        }
    }

    /** The first subscription's rows are as they were: unclaimed, their attempt unspent, and no handler ran. */
    private void assertNothingClaimed(TestDatabase db) throws Exception {
        Thread.sleep(300);
        assertThat(handled).hasValue(0);
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + FIRST
                        + " WHERE attempt = 1 AND locked_until IS NULL")) {
            rs.next();
            assertThat(rs.getInt(1)).as("rows unclaimed").isEqualTo(5);
        }
    }

    private static void assertFails(InboxBroker broker, Kind kind, String... mentions) {
        assertThatThrownBy(broker::connect).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(kind);
            assertThat(e.getMessage()).contains(mentions);
        });
    }

    /**
     * Sessions the broker's own pool keeps on the server, told from the others by the name its
     * connections give (PostgreSQL) or the user they sign in as (MariaDB).
     */
    private static long sessions(TestDatabase db) throws SQLException {
        String sql = switch (db) {
            case POSTGRES -> "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'inbox-startup-order'";
            case MARIADB, CONNECTOR_J, MYSQL ->
                    "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'inbox_startup'";
            case SQLITE -> "SELECT 0";
        };
        return db.number(sql);
    }

    private static String namedUrl(TestDatabase db) {
        return switch (db) {
            case POSTGRES -> db.url() + "&ApplicationName=inbox-startup-order";
            case MARIADB, CONNECTOR_J, MYSQL -> {
                db.execute("CREATE USER IF NOT EXISTS 'inbox_startup'@'%'", "GRANT ALL ON *.* TO 'inbox_startup'@'%'");
                yield db.url().replaceFirst("user=[^&]*", "user=inbox_startup").replaceFirst("&password=[^&]*", "");
            }
            case SQLITE -> db.url();
        };
    }

    private static boolean brokerPoolThreadsAlive() {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith("inbox housekeeper"));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aSecondSubscriptionFailingWithSchemaLeavesTheFirstUnstartedAndClosesTheBuiltPool(TestDatabase db)
            throws Exception {
        fill(db);
        db.execute("DROP TABLE IF EXISTS startup_missing_jobs");
        String url = namedUrl(db);
        long before = sessions(db);
        InboxBroker broker = InboxBroker.fromUrl(url).pollInterval(java.time.Duration.ofMillis(20))
                .subscribe(first()).subscribe(second(Job.leaseTable("startup_missing_jobs")));
        assertFails(broker, Kind.SCHEMA, "startup_missing_jobs");
        assertNothingClaimed(db);
        assertThat(sessions(db)).as("sessions of the pool the broker built").isEqualTo(before);
        assertThat(brokerPoolThreadsAlive()).as("the built pool's threads").isFalse();
        assertThatThrownBy(() -> broker.publisher("first", Job.class).publish(new Job(1)))
                .isInstanceOfSatisfying(InboxException.class, e -> assertThat(e.kind()).isEqualTo(Kind.CLOSED));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aSecondSubscriptionFailingWithDeclarationLeavesTheApplicationsPoolAsItWas(TestDatabase db) throws Exception {
        fill(db);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setMaximumPoolSize(6);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            InboxBroker broker = InboxBroker.fromDataSource(pool).pollInterval(java.time.Duration.ofMillis(20))
                    .subscribe(first()).subscribe(second(Job.leaseTable(TOO_LONG)));
            assertFails(broker, Kind.DECLARATION, "startup_xxx", "takes at most", "shorten it");
            assertNothingClaimed(db);
            assertThat(pool.isClosed()).as("the application's pool").isFalse();
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("connections not given back").isZero();
        }
    }

    @Test
    void aFormTheDatabaseDoesNotServeFailsBeforeAnyTableIsOpened() throws Exception {
        fill(TestDatabase.SQLITE);
        InboxSpec rowLock = TestTable.of("startup_rowlock_jobs", ClaimForm.ROW_LOCK).spec();
        InboxBroker broker = InboxBroker.fromUrl(TestDatabase.SQLITE.url())
                .subscribe(first()).subscribe(second(rowLock));
        assertFails(broker, Kind.DECLARATION, "queue second", "ROW_LOCK", "sqlite");
        assertNothingClaimed(TestDatabase.SQLITE);
        assertThat(brokerPoolThreadsAlive()).as("the built pool's threads").isFalse();
    }

    @Test
    void aListenThePoolerRefusesFailsTheStartWithNothingClaimed() throws Exception {
        TestDatabase db = TestDatabase.POSTGRES;
        fill(db);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setMaximumPoolSize(6);
        // A pool of its own: the test suite's shared one may lend a connection to another test's broker meanwhile.
        try (HikariDataSource pool = new HikariDataSource(config)) {
            DataSource pooler = ListenRefusingDataSource.over(pool);
            InboxBroker broker = InboxBroker.fromDataSource(pooler).listenNotify(true)
                    .pollInterval(java.time.Duration.ofMillis(20)).subscribe(first());
            assertFails(broker, Kind.CONNECT, "listening for notifications", "LISTEN is not supported",
                    "session mode", "listen-notify off");
            assertNothingClaimed(db);
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("connections not given back").isZero();
        }
    }
}
