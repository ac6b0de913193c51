package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.engine.GaleraDrain.GaleraJob;
import dev.inbox.schema.InboxSchema;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A three-node MariaDB Galera Cluster ({@code scripts/galera.sh}). Three brokers in the lease form,
 * one per node or all on one node through a multi-host URL, drain a queue with a transactional
 * handler that writes one effect row per job: every effect once, though the brokers' claims race
 * across nodes and the losers' transactions fail certification, and none of it is a warning; and a
 * delivery whose commit loses certification (every handler updates one row) settles as a retry.
 * Then the same drain with a node killed ({@code kill -9}) a third of the way through: nothing
 * lost, nothing doubled, the queue empty, the killed node's rows in work taken over once their
 * leases ran out, and the node, started again, back in the cluster (IST) and Synced. Row lock and
 * advisory tables, whose locks hold on one node, are refused at connect. The cases with a kill run
 * last: a broker of a killed node logs its lost connections for a while after its shutdown, and the
 * cases before count the engine's warnings.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GaleraClusterTest {
    private static final int JOBS = 3_000;
    private static final int WORKERS = 4;
    /** Short, so that the killed node's rows in work return soon. */
    private static final Duration LEASE = Duration.ofSeconds(3);
    /** The jobs of the case whose deliveries all update one row: most commits conflict, and each retry waits {@link #RETRY}. */
    private static final int HOT_JOBS = 300;
    private static final Duration RETRY = Duration.ofMillis(100);
    private static final String TABLE = "galera_jobs";
    private static GaleraCluster cluster;

    /** Where the brokers connect. */
    enum Brokers {
        /** Broker N to node N; node 3 is killed. */
        ONE_PER_NODE,
        /** Every broker through the multi-host URL, so on node 1 while it answers; node 1 is killed. */
        ALL_ON_ONE_NODE
    }

    @BeforeAll
    static void startTheCluster() {
        cluster = GaleraCluster.fromBuild();
        cluster.start();
    }

    @AfterAll
    static void stopTheCluster() {
        if (cluster != null) {
            cluster.stop();
        }
    }

    @Order(1)
    @ParameterizedTest
    @EnumSource(value = ClaimForm.class, names = {"ROW_LOCK", "ADVISORY"})
    void formsWhoseLocksHoldOnOneNodeAreRefusedNamingGaleraAndTheLeaseForm(ClaimForm form) throws SQLException {
        createTables(form);
        InboxBroker broker = InboxBroker.fromUrl(GaleraCluster.url(1)).connectionLimit(4)
                .subscribe(Subscription.of("galera", DrainTables.spec(TABLE, form), Job.class, (job, d) -> Outcome.ack()));
        assertThatThrownBy(broker::connect).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(InboxException.Kind.DIALECT);
            assertThat(e.getMessage()).contains("Galera", "lease form", TABLE);
        });
    }

    @Order(2)
    @Test
    void threeBrokersOnThreeNodesHandleEveryJobOnceTheirLostClaimRacesNoWarning() throws Exception {
        EngineWarnings warnings = drain(Brokers.ONE_PER_NODE, false, JOBS, new GaleraDrain(false));
        assertThat(warnings.warnings()).as("warnings of the engine").isEmpty();
    }

    @Order(3)
    @Test
    void deliveriesWhoseCommitLosesCertificationSettleAsRetriesAndTakeEffectOnce() throws Exception {
        GaleraDrain work = new GaleraDrain(true);
        EngineWarnings warnings = drain(Brokers.ONE_PER_NODE, false, HOT_JOBS, work);
        assertThat(work.racesLost.get("delivery")).as("deliveries that lost certification").isNotNull().hasPositiveValue();
        assertThat(warnings.warnings()).as("warnings of the engine").isEmpty();
        try (Connection c = cluster.connect(1); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT hits FROM " + GaleraDrain.COUNTER)) {
            rs.next();
            assertThat(rs.getInt(1)).as("the hot row's count: each delivery's update once").isEqualTo(HOT_JOBS);
        }
    }

    @Order(4)
    @Test
    void aNodeKilledMidDrainLosesNoJobAndDoublesNoneAndRejoins() throws Exception {
        drain(Brokers.ONE_PER_NODE, true, JOBS, new GaleraDrain(false));
    }

    @Order(5)
    @Test
    void brokersOnOneNodeThroughTheMultiHostUrlFailOverWhenItIsKilled() throws Exception {
        drain(Brokers.ALL_ON_ONE_NODE, true, JOBS, new GaleraDrain(false));
    }

    /** Drains {@code jobs} jobs through three brokers; returns the engine's warnings meanwhile. */
    private static EngineWarnings drain(Brokers brokers, boolean kill, int jobs, GaleraDrain work) throws Exception {
        cluster.start();
        createTables(ClaimForm.LEASE);
        publish(jobs);
        int killed = brokers == Brokers.ONE_PER_NODE ? 3 : 1;
        int survivor = killed == 1 ? 2 : 1;
        long begun = System.nanoTime();
        List<InboxBroker> started = new ArrayList<>();
        String killPoint = "none";
        long killedAt = 0;
        EngineWarnings warnings = EngineWarnings.count();
        try (warnings) {
            for (int b = 1; b <= 3; b++) {
                String url = brokers == Brokers.ONE_PER_NODE ? GaleraCluster.url(b) : cluster.url();
                started.add(InboxBroker.fromUrl(url).connectionLimit(8).pollInterval(Duration.ofMillis(200))
                        .lease(LEASE).listener(work.listener())
                        .subscribe(Subscription.of("galera", DrainTables.spec(TABLE, ClaimForm.LEASE), GaleraJob.class,
                                work.handler(b)).workers(WORKERS).transactional(true)
                                .retryBackoff(RETRY).retryBackoffMax(RETRY))
                        .connect());
            }
            if (kill) {
                Eventually.await(() -> work.calls.get() >= JOBS / 3, Duration.ofSeconds(60),
                        () -> "a third of the jobs handled before the kill: " + work.calls.get());
                killPoint = String.valueOf(work.calls.get());
                killedAt = System.nanoTime();
                cluster.kill(killed);
            }
            Eventually.await(() -> rows(survivor, TABLE) == 0 && rows(survivor, GaleraDrain.EFFECTS) >= jobs,
                    Duration.ofSeconds(120), () -> "not drained: " + rows(survivor, TABLE) + " rows left, "
                            + rows(survivor, GaleraDrain.EFFECTS) + " effects");
        } finally {
            for (InboxBroker broker : started) {
                broker.shutdown(Duration.ofSeconds(5));
            }
        }
        if (!warnings.warnings().isEmpty()) {
            System.out.println("GALERA warnings of the engine: " + warnings.warnings().size() + ", the first: "
                    + warnings.warnings().get(0));
        }
        double seconds = (System.nanoTime() - begun) / 1e9;
        String rejoined = "";
        if (kill) {
            cluster.startNode(killed);
            rejoined = cluster.status(killed, "wsrep_local_state_comment");
        }
        Map<Integer, Map<Integer, Integer>> effects = effects(survivor);
        long lost = 0;
        long doubled = 0;
        for (int n = 0; n < jobs; n++) {
            int times = effects.getOrDefault(n, Map.of()).values().stream().mapToInt(Integer::intValue).sum();
            lost += times == 0 ? 1 : 0;
            doubled += times > 1 ? 1 : 0;
        }
        // Begun by a broker on the killed node that never wrote its effect, and written by another: a row
        // in work there when it went, taken over once its lease ran out.
        int takenOver = 0;
        long takenOverWithinMs = 0;
        for (Map.Entry<Integer, Map<Integer, Long>> job : work.began.entrySet()) {
            Set<Integer> by = effects.getOrDefault(job.getKey(), Map.of()).keySet();
            boolean lostWithTheNode = job.getValue().keySet().stream()
                    .anyMatch(b -> (brokers == Brokers.ALL_ON_ONE_NODE || b == killed) && !by.contains(b));
            if (kill && lostWithTheNode && by.size() == 1) {
                takenOver++;
                long at = job.getValue().get(by.iterator().next());
                takenOverWithinMs = Math.max(takenOverWithinMs, (at - killedAt) / 1_000_000);
            }
        }
        System.out.printf("GALERA form=lease brokers=3 on=%s jobs=%d effects=%d lost=%d doubled=%d overlaps=%d"
                        + " races_lost=%d %s taken_over=%d taken_over_within_ms=%d kill_point=%s killed_node=%s rejoined=%s seconds=%.1f%n",
                (brokers == Brokers.ONE_PER_NODE ? "3_nodes" : "1_node_multi_host") + (work.hotRow() ? "_hot_row" : ""),
                jobs,
                effects.values().stream().mapToInt(m -> m.values().stream().mapToInt(Integer::intValue).sum()).sum(),
                lost, doubled, work.overlaps.get(), work.races(), work.racesLost.entrySet().stream()
                        .map(e -> e.getKey().replace(' ', '_') + "=" + e.getValue()).collect(Collectors.joining(",", "(", ")")),
                takenOver, takenOverWithinMs, killPoint, kill ? killed : "none", kill ? rejoined : "-", seconds);
        assertThat(lost).as("jobs without their effect").isZero();
        assertThat(doubled).as("jobs whose effect was written twice").isZero();
        assertThat(work.overlaps.get()).as("runs of a job while another run of it was in work").isZero();
        assertThat(rows(survivor, TABLE)).as("rows left in the queue").isZero();
        if (kill) {
            assertThat(takenOver).as("rows in work on the killed node, handled by another broker").isPositive();
            assertThat(rejoined).as("the killed node, started again").isEqualTo("Synced");
            assertThat(rows(killed, GaleraDrain.EFFECTS)).as("effects on the rejoined node").isEqualTo(jobs);
            assertThat(rows(killed, TABLE)).as("rows on the rejoined node").isZero();
        }
        return warnings;
    }

    private static void createTables(ClaimForm form) throws SQLException {
        try (Connection c = cluster.connect(1); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE + ", " + GaleraDrain.EFFECTS + ", " + GaleraDrain.COUNTER);
            s.execute("CREATE TABLE " + GaleraDrain.COUNTER + " (id INT PRIMARY KEY, hits INT NOT NULL)");
            s.execute("INSERT INTO " + GaleraDrain.COUNTER + " VALUES (1, 0)");
            for (String sql : InboxSchema.of("mariadb").queue(DrainTables.spec(TABLE, form))) {
                s.execute(sql);
            }
            // A key of its own, as Galera wants of every table; none on n, so that an effect written
            // twice shows, not fails its second transaction.
            s.execute("CREATE TABLE " + GaleraDrain.EFFECTS + " (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
                    + " n INT NOT NULL, broker INT NOT NULL)");
        }
    }

    /** Jobs 0 to {@code jobs - 1} (a multiple of 100), inserted before any broker claims, so that they all race from the start. */
    private static void publish(int jobs) throws SQLException {
        int chunk = 100;
        String values = String.join(", ", java.util.Collections.nCopies(chunk, "(?)"));
        try (Connection c = cluster.connect(1);
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (payload) VALUES " + values)) {
            for (int from = 0; from < jobs; from += chunk) {
                for (int i = 0; i < chunk; i++) {
                    ps.setBytes(i + 1, ("{\"n\":" + (from + i) + "}").getBytes(StandardCharsets.UTF_8));
                }
                ps.executeUpdate();
            }
        }
    }

    private static long rows(int node, String table) {
        try (Connection c = cluster.connect(node); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            return -1;
        }
    }

    /** Effect rows by job, and by the broker that wrote them. */
    private static Map<Integer, Map<Integer, Integer>> effects(int node) throws SQLException {
        Map<Integer, Map<Integer, Integer>> effects = new HashMap<>();
        try (Connection c = cluster.connect(node); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT n, broker, count(*) FROM " + GaleraDrain.EFFECTS
                        + " GROUP BY n, broker")) {
            while (rs.next()) {
                effects.computeIfAbsent(rs.getInt(1), n -> new HashMap<>()).put(rs.getInt(2), rs.getInt(3));
            }
        }
        return effects;
    }
}
