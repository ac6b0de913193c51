package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Exactly once under JTA in every claim form each database serves, on a real Open Liberty: a
 * transactional handler writes its effect through an injected {@code DataSource}; an ack commits
 * it once with the settlement, a retry and an exception roll it back, and a server killed with
 * {@code kill -9} mid-load leaves exactly one effect per job. The forms application
 * ({@link FormsArchive}) runs beside the sample.
 */
class FormsOnLibertyIT {
    private static final String API = "http://127.0.0.1:9080/forms-it/api";
    private static final List<String> TABLES = List.of("it_lease_jobs", "it_rowlock_jobs", "it_advisory_jobs",
            "it_mdb_jobs", "it_effects");
    /** Jobs per form in the kill case, numbered from {@link #LOAD}. */
    private static final int JOBS = 300;
    private static final long LOAD = 1_000;

    private final LibertyServer server = new LibertyServer();
    private final FormsArchive forms = new FormsArchive(server.outputDir());
    private ItDatabase db;

    @AfterEach
    void stop() throws Exception {
        try {
            server.stop();
        } finally {
            forms.undeploy();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "mariadb"})
    void eachFormCommitsTheHandlersWritesExactlyOnceWithItsAck(String database) throws Exception {
        db = new ItDatabase(database, server.outputDir());
        db.drop(TABLES);
        // Each claim form the database serves, and the message-driven bean (its queue's table in the lease form).
        List<String> served = db.sqlite() ? List.of("lease", "advisory", "mdb")
                : List.of("lease", "rowlock", "advisory", "mdb");
        forms.deploy(served.contains("rowlock"));
        createTables(); // before the server starts: the bean activates before any observer of the application runs
        // Rows a kill leaves leased come back after five seconds instead of the default 30.
        server.configure(database, List.of("inbox.queue.it-lease.lease=PT5S"));
        server.start();
        server.api().awaitAnswer(API + "/ping");

        for (String form : served) {
            publish(form, "ack", 1, 1);
            publish(form, "retry-once", 2, 1);
            publish(form, "throw-once", 3, 1);
        }
        for (String form : served) {
            ItDatabase.await(() -> db.count("it_" + form + "_jobs") == 0, Duration.ofSeconds(60),
                    form + ": the three jobs settled");
            assertThat(effects(form, 1)).as(form + ": job -> attempt of each committed effect")
                    .isEqualTo(new TreeMap<>(Map.of(1L, List.of(1), 2L, List.of(2), 3L, List.of(2))));
        }

        for (String form : served) {
            publish(form, "slow", LOAD, JOBS);
        }
        ItDatabase.await(() -> served.stream().allMatch(form -> db.count(
                "it_effects WHERE form = '" + form + "' AND job >= " + LOAD) >= JOBS / 6), Duration.ofSeconds(120),
                "a sixth of each form's load handled");
        server.kill();
        List<String> atKill = new ArrayList<>();
        for (String form : served) {
            atKill.add(form + " " + db.count("it_effects WHERE form = '" + form + "' AND job >= " + LOAD));
        }
        server.startAgain();
        server.api().awaitAnswer(API + "/ping");
        for (String form : served) {
            ItDatabase.await(() -> db.count("it_" + form + "_jobs") == 0, Duration.ofSeconds(120),
                    form + ": the load drained after the restart (handled at the kill: " + atKill + ")");
            Map<Long, List<Integer>> load = effects(form, LOAD);
            assertThat(load).as(form + ": one effect per job").hasSize(JOBS);
            assertThat(load.values()).as(form + ": no job's effect committed twice").allMatch(e -> e.size() == 1);
        }
    }

    /** Publishes through the application's REST API; the bean's jobs as another program writes them. */
    private void publish(String form, String mode, long from, int count) throws Exception {
        if (form.equals("mdb")) {
            // One transaction: on SQLite one wait for the server's writers, not one per row.
            try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO it_mdb_jobs (payload) VALUES (?)")) {
                c.setAutoCommit(false);
                for (long job = from; job < from + count; job++) {
                    ps.setBytes(1, ("{\"job\":" + job + ",\"mode\":\"" + mode + "\"}").getBytes(StandardCharsets.UTF_8));
                    ps.addBatch();
                }
                ps.executeBatch();
                c.commit();
            }
            return;
        }
        assertThat(server.api().postTo(API + "/" + form + "/" + mode + "?from=" + from + "&count=" + count))
                .as("publish to " + form).isEqualTo(202);
    }

    /** The forms application's tables, as an operator creates them before deploying it. */
    private void createTables() throws SQLException {
        String id = switch (db.name()) {
            case "postgres" -> "BIGSERIAL PRIMARY KEY";
            case "mariadb" -> "BIGINT AUTO_INCREMENT PRIMARY KEY";
            default -> "INTEGER PRIMARY KEY";
        };
        String time = switch (db.name()) {
            case "postgres" -> "TIMESTAMPTZ";
            case "mariadb" -> "DATETIME NULL";
            default -> "TEXT";
        };
        String common = "id " + id + ", attempt SMALLINT NOT NULL DEFAULT 1, payload "
                + (db.name().equals("postgres") ? "BYTEA" : "BLOB") + " NOT NULL";
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            for (String leased : new String[] {"it_lease_jobs", "it_mdb_jobs"}) {
                s.execute("CREATE TABLE IF NOT EXISTS " + leased + " (" + common + ", locked_until " + time + ")");
            }
            s.execute("CREATE TABLE IF NOT EXISTS it_rowlock_jobs (" + common + ", retry_after " + time + ")");
            s.execute("CREATE TABLE IF NOT EXISTS it_advisory_jobs (" + common + ", lock_key VARCHAR(100),"
                    + " retry_after " + time + ")");
            s.execute("CREATE TABLE IF NOT EXISTS it_effects (form VARCHAR(20) NOT NULL, job BIGINT NOT NULL,"
                    + " attempt INTEGER NOT NULL)");
        }
    }

    /** The attempts of each committed effect of {@code form}, by job, for jobs from {@code from}. */
    private Map<Long, List<Integer>> effects(String form, long from) throws SQLException {
        Map<Long, List<Integer>> effects = new TreeMap<>();
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT job, attempt FROM it_effects WHERE form = ? AND job >= ? AND job < ? ORDER BY job, attempt")) {
            ps.setString(1, form);
            ps.setLong(2, from);
            ps.setLong(3, from == LOAD ? LOAD + JOBS : LOAD);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    effects.computeIfAbsent(rs.getLong(1), job -> new ArrayList<>()).add(rs.getInt(2));
                }
            }
        }
        return effects;
    }
}
