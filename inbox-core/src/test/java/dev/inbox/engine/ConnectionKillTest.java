package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.ClaimForm;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every connection of the brokers killed from the database side mid-drain (pg_terminate_backend,
 * MariaDB KILL), under claims, settlements and keepers: they recover by themselves, log each
 * failure once rather than a flood, and lose nothing.
 */
class ConnectionKillTest {
    private static final int JOBS = 2_000;

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "CONNECTOR_J"})
    void killedConnectionsAreReplacedAndNoJobIsLost(TestDatabase db) throws Exception {
        TestTable table = TestTable.of("kill_jobs", ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO kill_jobs (payload) VALUES (?)")) {
            for (int i = 0; i < JOBS; i++) {
                ps.setBytes(1, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
                ps.addBatch();
            }
            ps.executeBatch();
        }
        Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
        List<InboxBroker> brokers = new ArrayList<>();
        List<String> logged = LogCapture.during(() -> {
            try {
                for (int b = 0; b < 2; b++) {
                    brokers.add(InboxBroker.fromUrl(db.url()).lease(Duration.ofSeconds(2))
                            .pollInterval(Duration.ofMillis(100))
                            .subscribe(Subscription.of("kill", table.spec(), Job.class, (job, d) -> {
                                Thread.sleep(1);
                                handled.computeIfAbsent(job.n(), n -> new AtomicInteger()).incrementAndGet();
                                return Outcome.ack();
                            }).workers(4))
                            .connect());
                }
                Eventually.await(() -> handled.size() >= 400, Duration.ofSeconds(30), () -> "a first part handled");
                int killed = killOtherConnections(db);
                assertThat(killed).isPositive();
                Eventually.await(() -> handled.size() == JOBS && db.count(table.name()) == 0, Duration.ofMinutes(2),
                        () -> handled.size() + " handled, " + db.count(table.name()) + " rows left");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                brokers.forEach(InboxBroker::shutdown);
            }
        });
        long claimWarnings = logged.stream().filter(l -> l.startsWith("WARNING") && l.contains("claiming from table")
                && l.contains("failed")).count();
        System.out.printf("KILL db=%s jobs=%d handled=%d lost=0 handled_again=%d claim_warnings=%d%n",
                db.name().toLowerCase(), JOBS, handled.size(),
                handled.values().stream().filter(n -> n.get() > 1).count(), claimWarnings);
        assertThat(handled).hasSize(JOBS);
        assertThat(claimWarnings).as("one warning per claim loop per outage, not a flood").isLessThanOrEqualTo(2);
        assertThat(logged).anyMatch(l -> l.contains("recovered after"));
    }

    /** Kills every session of the test database but the one asking; returns how many. */
    private static int killOtherConnections(TestDatabase db) throws Exception {
        try (Connection c = java.sql.DriverManager.getConnection(db.url()); Statement s = c.createStatement()) {
            if (db == TestDatabase.POSTGRES) {
                try (ResultSet rs = s.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                        + " WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
            List<Long> ids = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT id FROM information_schema.processlist"
                    + " WHERE db = DATABASE() AND id <> CONNECTION_ID()")) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            for (long id : ids) {
                try {
                    s.execute("KILL " + id);
                } catch (java.sql.SQLException gone) {
                    // it ended by itself meanwhile
                }
            }
            return ids.size();
        }
    }
}
