package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.ClaimForm;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** LISTEN/NOTIFY on PostgreSQL: rows other processes insert wake the subscription at once; a silent listener recovers. */
class ListenNotifyTest {
    private static final TestDatabase DB = TestDatabase.POSTGRES;
    private static final TestTable TABLE = TestTable.of("ln_jobs", ClaimForm.LEASE, TestTable.Feature.ATTEMPT);

    private final Map<Integer, Long> started = new ConcurrentHashMap<>();
    private InboxBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.shutdown();
        }
        DB.execute("DROP TRIGGER IF EXISTS ln_jobs_notify ON ln_jobs");
    }

    private void start(Duration poll, Duration probe) {
        TABLE.create(DB);
        broker = InboxBroker.fromUrl(DB.url()).pollInterval(poll).listenNotify(true).listenProbeInterval(probe)
                .subscribe(Subscription.of("ln", TABLE.spec(), Job.class, (job, d) -> {
                    started.putIfAbsent(job.n(), System.nanoTime());
                    return Outcome.ack();
                }))
                .connect();
    }

    /** Inserts job {@code n} as another process would, with plain SQL, notifying unless a trigger does; returns when it committed. */
    private static long insertElsewhere(int n, boolean notify) throws SQLException {
        try (Connection c = DB.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO ln_jobs (payload) VALUES (?)")) {
                ps.setBytes(1, ("{\"n\":" + n + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                ps.executeUpdate();
            }
            if (notify) {
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT pg_notify('inbox_ln_jobs', '')");
                }
            }
            long before = System.nanoTime();
            c.commit();
            return before;
        }
    }

    private void awaitHandled(int n, Duration within) {
        Eventually.await(() -> started.containsKey(n), within, () -> "job " + n + " handled");
    }

    @Test
    void wakeLatencyFromAnotherProcessIsFarUnderTheFiveSecondPollInterval() throws Exception {
        start(Duration.ofSeconds(5), Duration.ofSeconds(10));
        Thread.sleep(300); // the first claim found nothing and waits for its poll
        List<Double> latencies = new ArrayList<>();
        for (int n = 0; n < 200; n++) {
            long committed = insertElsewhere(n, true);
            awaitHandled(n, Duration.ofSeconds(10));
            latencies.add((started.get(n) - committed) / 1e6);
        }
        Collections.sort(latencies);
        double p50 = latencies.get(99);
        double p99 = latencies.get(197);
        System.out.printf("LATENCY listen-notify db=postgres jobs=200 poll_ms=5000 p50_ms=%.2f p99_ms=%.2f%n", p50, p99);
        assertThat(p99).as("p99 wake latency in ms").isLessThan(1000);
    }

    @Test
    void theDocumentedTriggerWakesOnAPlainInsert() throws Exception {
        start(Duration.ofSeconds(30), Duration.ofSeconds(10));
        DB.execute("CREATE OR REPLACE FUNCTION inbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$"
                + " BEGIN PERFORM pg_notify('inbox_' || lower(TG_TABLE_NAME), ''); RETURN NULL; END $$",
                "CREATE TRIGGER ln_jobs_notify AFTER INSERT ON ln_jobs FOR EACH STATEMENT EXECUTE FUNCTION inbox_notify()");
        Thread.sleep(300);
        long committed = insertElsewhere(1, false);
        awaitHandled(1, Duration.ofSeconds(5));
        assertThat((started.get(1) - committed) / 1_000_000).isLessThan(2_000);
    }

    @Test
    void aListenerThatWentSilentIsFoundByItsProbeAndListensAgain() throws Exception {
        start(Duration.ofSeconds(30), Duration.ofMillis(300));
        insertElsewhere(1, true);
        awaitHandled(1, Duration.ofSeconds(5));
        broker.silenceListener();
        Thread.sleep(600); // the listener thread runs UNLISTEN within its next wait
        insertElsewhere(2, true); // its notification falls on deaf ears
        awaitHandled(2, Duration.ofSeconds(10)); // far under the 30 s poll: the probe found the silence
        assertThat(broker.listenerConnects()).isGreaterThanOrEqualTo(2);
        insertElsewhere(3, true);
        awaitHandled(3, Duration.ofSeconds(5));
    }

    @Test
    void aListenerWhoseBackendIsTerminatedReconnects() throws Exception {
        start(Duration.ofSeconds(30), Duration.ofSeconds(1));
        insertElsewhere(1, true);
        awaitHandled(1, Duration.ofSeconds(5));
        DB.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN inbox_%'"
                + " AND pid <> pg_backend_pid()");
        Eventually.await(() -> broker.listenerConnects() >= 2, Duration.ofSeconds(10), () -> "reconnected");
        insertElsewhere(2, true);
        awaitHandled(2, Duration.ofSeconds(5));
    }
}
