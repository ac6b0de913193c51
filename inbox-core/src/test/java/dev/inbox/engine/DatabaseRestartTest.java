package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.ClaimForm;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.spi.BrokerListener;
import dev.inbox.testdb.TestServers;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
 * The database goes away mid-drain and comes back: claim loops and keepers log the failure, back
 * off and resume on their own, and no job is lost. Restarts the local server, so it needs the
 * rights to (CI runs as root).
 */
class DatabaseRestartTest {
    private static final int JOBS = 5_000;

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "CONNECTOR_J"})
    void aServerRestartedMidDrainLosesNoJob(TestDatabase db) throws Exception {
        TestTable table = TestTable.of("restart_jobs", ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO restart_jobs (payload) VALUES (?)")) {
            c.setAutoCommit(false);
            for (int i = 0; i < JOBS; i++) {
                ps.setBytes(1, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
                ps.addBatch();
            }
            ps.executeBatch();
            c.commit();
            c.setAutoCommit(true);
        }
        Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
        AtomicInteger failures = new AtomicInteger();
        List<InboxBroker> brokers = new ArrayList<>();
        for (int b = 0; b < 2; b++) {
            brokers.add(InboxBroker.fromUrl(db.url()).lease(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(200))
                    .listener(new BrokerListener() {
                        @Override
                        public void databaseFailed(String queue, String what, Exception error) {
                            failures.incrementAndGet();
                        }

                        @Override
                        public void settlementFailed(String queue, Object id, dev.inbox.Outcome outcome,
                                dev.inbox.InboxException error) {
                            // A restart short enough to fall between two claims meets only settlements.
                            if (error.kind() == dev.inbox.InboxException.Kind.DATABASE) {
                                failures.incrementAndGet();
                            }
                        }
                    })
                    .subscribe(Subscription.of("restart", table.spec(), Job.class, (job, d) -> {
                        if (job.n() % 5 == 0) {
                            Thread.sleep(2);
                        }
                        handled.computeIfAbsent(job.n(), n -> new AtomicInteger()).incrementAndGet();
                        return Outcome.ack();
                    }).workers(4))
                    .connect());
        }
        try {
            Eventually.await(() -> handled.size() >= 1_000, Duration.ofSeconds(30), () -> "a first part handled");
            restart(db);
            Eventually.await(() -> handled.size() == JOBS && db.count(table.name()) == 0, Duration.ofMinutes(2),
                    () -> handled.size() + " jobs handled, " + db.count(table.name()) + " rows left");
        } finally {
            brokers.forEach(b -> b.shutdown(Duration.ofSeconds(5)));
        }
        long twice = handled.values().stream().filter(n -> n.get() > 1).count();
        System.out.printf("RESTART db=%s jobs=%d handled=%d lost=0 handled_again=%d failures_reported=%d%n",
                db.name().toLowerCase(), JOBS, handled.size(), twice, failures.get());
        assertThat(handled).hasSize(JOBS);
        assertThat(failures.get()).as("the outage was seen and survived").isPositive();
    }

    /**
     * Restarts the local server as DEVELOPERS.md starts it, and waits until it answers again; an
     * embedded server this test run started (no server on the machine) is restarted in place.
     */
    static void restart(TestDatabase db) throws IOException, InterruptedException {
        int port = URI.create(db.url().substring("jdbc:".length())).getPort();
        if (TestServers.embedded(port)) {
            TestServers.stop(port);
            TestServers.start(port);
            return;
        }
        if (db == TestDatabase.POSTGRES) {
            run("pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql | head -n 1) main restart");
        } else {
            // The server's own pid file names it: the nodes of scripts/galera.sh run the same binary, and
            // start-stop-daemon --exec alone took one of them for it (and so started nothing again).
            String pidFile = pidFile(db);
            String pid = Files.readString(Path.of(pidFile)).strip();
            run("mariadb-admin --protocol=TCP -h 127.0.0.1 -u root shutdown");
            try {
                // A server still shutting down would be taken for a running one.
                run("for i in $(seq 1 600); do kill -0 " + pid + " 2>/dev/null || exit 0; sleep 0.1; done; exit 1");
            } finally {
                // Started again whatever happened, so that the tests after this one find it.
                run("start-stop-daemon --start --oknodo --background --pidfile " + pidFile
                        + " --exec /usr/sbin/mariadbd");
                run("for i in $(seq 1 300); do mariadb-admin --protocol=TCP -h 127.0.0.1 -u root ping >/dev/null 2>&1"
                        + " && exit 0; sleep 0.1; done; exit 1");
            }
        }
    }

    /** Where the MariaDB server of {@code db} writes its process id. */
    private static String pidFile(TestDatabase db) throws IOException {
        try (Connection c = DriverManager.getConnection(db.url()); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@pid_file")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IOException("the server's pid file could not be read: " + e.getMessage(), e);
        }
    }

    private static void run(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("'" + command + "' failed: " + out);
        }
    }
}
