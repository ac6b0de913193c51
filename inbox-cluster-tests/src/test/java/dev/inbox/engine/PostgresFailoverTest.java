package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.BrokerHealth;
import dev.inbox.ClaimForm;
import dev.inbox.Subscription;
import dev.inbox.engine.FailoverLoad.FailoverJob;
import dev.inbox.schema.InboxSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A PostgreSQL primary with a synchronous streaming standby, reached through pgjdbc's multi-host URL
 * ({@code targetServerType=primary}). Under load (a publisher, a transactional handler writing one
 * effect row per job, a plain handler whose acks the engine batches), the primary goes: killed
 * ({@code kill -9} of its postmaster) or stopped cleanly, and the standby is promoted. The same
 * broker, never restarted, fails its claims, keepers, acks, publishes and LISTEN connection over to
 * the new primary; its health is down during and up after; every job whose publish returned is
 * handled, each transactional effect once, and both queues end empty.
 */
class PostgresFailoverTest {
    private static final int JOBS = 2_000;
    /** Longer than the failover takes, so that a row in work is still leased once the new primary answers. */
    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final String TX = "failover_jobs";
    private static final String PLAIN = "failover_plain_jobs";
    private static PgPair pair;

    /** How the primary goes. */
    enum Ending {
        /** {@code kill -9} of the postmaster: an unplanned failure. */
        KILL,
        /** A clean stop, then the promotion: a planned switchover. */
        SWITCHOVER
    }

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (ClaimForm form : ClaimForm.values()) {
            for (Ending ending : Ending.values()) {
                cases.add(Arguments.of(form, ending));
            }
        }
        return cases.stream();
    }

    @BeforeAll
    static void findThePair() {
        pair = PgPair.fromBuild();
    }

    @AfterAll
    static void stopThePair() {
        if (pair != null) {
            pair.stop();
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void theBrokerFailsOverToThePromotedStandbyLosingNoAcknowledgedJob(ClaimForm form, Ending ending)
            throws Exception {
        pair.start();
        int oldPrimary = pair.primaryPort();
        int standby = pair.standbyPort();
        createTables(form);
        FailoverLoad load = new FailoverLoad(JOBS);
        InboxBroker broker = InboxBroker.fromUrl(pair.url()).connectionLimit(16).pollInterval(Duration.ofMillis(200))
                .lease(LEASE).listenNotify(true).listenProbeInterval(Duration.ofSeconds(2))
                .subscribe(Subscription.of("failover_tx", DrainTables.spec(TX, form), FailoverJob.class, load::effect)
                        .workers(4).transactional(true))
                .subscribe(Subscription.of("failover_plain", DrainTables.spec(PLAIN, form), FailoverJob.class, load::plain)
                        .workers(4))
                .connect();
        String killPoint;
        String down;
        long upAfter;
        try {
            Eventually.await(() -> pair.listeningSessionsOr0(oldPrimary) > 0, Duration.ofSeconds(10),
                    () -> "the broker does not listen on the primary");
            int connects = broker.listenerConnects();
            load.start(broker.publisher("failover_tx", FailoverJob.class),
                    broker.publisher("failover_plain", FailoverJob.class));
            Eventually.await(() -> load.txCalls.size() >= JOBS / 4 && load.plainHandled.size() >= JOBS / 4,
                    Duration.ofSeconds(60), () -> "a quarter of the jobs handled before the primary goes: "
                            + load.txCalls.size() + " and " + load.plainHandled.size());
            killPoint = "handled:" + load.txCalls.size() + ",published:" + load.publishedTx.size();
            String slow = load.slowInWork();
            assertThat(slow).as("the slow job is in work as the primary goes").startsWith("tx");
            killPoint += ",slow_in_work:" + slow;
            long goneAt = System.nanoTime();
            if (ending == Ending.KILL) {
                pair.killPrimary();
            } else {
                pair.stopPrimary();
            }
            Eventually.await(() -> !broker.health().ready(), Duration.ofSeconds(30),
                    () -> "the broker's health stayed up with its primary gone");
            down = problem(broker.health());
            assertThat(pair.listeningSessions(standby)).as("nothing listens on the node in recovery").isZero();
            pair.promote();

            Eventually.await(() -> broker.health().ready(), Duration.ofSeconds(60),
                    () -> "the broker's health is not up after the promotion: " + broker.health());
            upAfter = Duration.ofNanos(System.nanoTime() - goneAt).toMillis();
            Eventually.await(() -> broker.listenerConnects() > connects && pair.listeningSessionsOr0(standby) > 0,
                    Duration.ofSeconds(30), () -> "the LISTEN connection is not on the new primary");
            Eventually.await(load::published, Duration.ofSeconds(120), () -> "the publisher did not finish");
            Eventually.await(() -> load.txCalls.keySet().containsAll(load.publishedTx)
                    && load.plainHandled.containsAll(load.publishedPlain) && rows(TX) == 0 && rows(PLAIN) == 0,
                    Duration.ofSeconds(120), () -> "not drained: " + rows(TX) + " and " + rows(PLAIN) + " rows left");
            assertThat(broker.health().ready()).as("up after the failover").isTrue();
            assertThat(broker.health().listener()).as("listening").isEmpty();
        } finally {
            load.stop();
            broker.shutdown(Duration.ofSeconds(10));
        }
        Map<Integer, Integer> effects = effects();
        long lost = load.publishedTx.stream().filter(n -> !effects.containsKey(n)).count();
        long doubled = effects.values().stream().filter(times -> times > 1).count();
        long lostPlain = load.publishedPlain.stream().filter(n -> !load.plainHandled.contains(n)).count();
        long redelivered = load.txCalls.values().stream().filter(calls -> calls.get() > 1).count();
        System.out.printf("FAILOVER form=%s ending=%s jobs=%d published=%d publish_failed=%d effects=%d lost=%d"
                        + " doubled=%d redelivered=%d plain_published=%d plain_lost=%d overlaps=%d/%d kill_point=%s"
                        + " up_after_ms=%d primary=%d->%d down=\"%s\"%n",
                form.name().toLowerCase(), ending.name().toLowerCase(), JOBS, load.publishedTx.size(),
                load.txPublishFailures.get(), effects.size(), lost, doubled, redelivered, load.publishedPlain.size(),
                lostPlain, load.txOverlaps.get(), load.plainOverlaps.get(), killPoint, upAfter, oldPrimary, standby,
                down);
        assertThat(lost).as("acknowledged jobs without their effect").isZero();
        assertThat(doubled).as("jobs whose effect was written twice").isZero();
        assertThat(lostPlain).as("acknowledged jobs of the plain queue not handled").isZero();
        if (form == ClaimForm.LEASE) {
            // The lease lives in the row, which the standby has: its keeper goes on extending it on
            // the new primary. Row and advisory locks die with the old primary's sessions instead,
            // so a job in work there may be claimed again while its first handler still runs.
            assertThat(load.txOverlaps.get() + load.plainOverlaps.get())
                    .as("deliveries of a job while an earlier one still ran").isZero();
        }
        assertThat(pair.primaryPort()).isEqualTo(standby);
    }

    private static String problem(BrokerHealth health) {
        StringBuilder s = new StringBuilder(health.listener());
        health.queues().stream().filter(q -> !q.ready()).forEach(q -> s.append(s.isEmpty() ? "" : "; ").append(q.problem()));
        return s.toString().replace('"', '\'');
    }

    private static void createTables(ClaimForm form) throws SQLException {
        try (Connection c = DriverManager.getConnection(pair.url()); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TX + ", " + PLAIN);
            for (String table : List.of(TX, PLAIN)) {
                for (String sql : InboxSchema.of("postgresql").queue(DrainTables.spec(table, form))) {
                    s.execute(sql);
                }
            }
            DrainTables.create(s, FailoverLoad.EFFECTS);
        }
    }

    private static long rows(String table) {
        return DrainTables.rows(pair.url(), table);
    }

    /** How many effect rows each job has. */
    private static Map<Integer, Integer> effects() throws SQLException {
        return DrainTables.byJob(pair.url(), FailoverLoad.EFFECTS);
    }
}
