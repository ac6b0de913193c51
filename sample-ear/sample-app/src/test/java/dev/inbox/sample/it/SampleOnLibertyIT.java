package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sample on a real Open Liberty, with the resource adapter, the CDI handlers and JTA
 * deliveries, on SQLite, PostgreSQL and MariaDB.
 */
class SampleOnLibertyIT {
    private static final List<String> TABLES = List.of("thumbnail_jobs", "report_jobs", "refund_jobs", "receipt_jobs",
            "refund_dead", "refunds", "receipts_mailed", "thumbnails_rendered", "reports_rendered");

    private final LibertyServer server = new LibertyServer();
    private String db;

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "mariadb"})
    void theSampleRunsOnEachDatabase(String database) throws Exception {
        db = database;
        dropTables();
        // MicroProfile Config: a one-second lease for reports instead of the annotation's minute.
        server.configure(db, List.of("inbox.queue.reports.lease=PT2S", "sample.reports.render-time=PT5S"));
        server.start();

        refundsAcceptanceCase();
        thumbnails();
        aConfigOverrideSetsTheLeaseAndTheKeeperKeepsALongReportAlive();
        aStopDuringWorkLosesNoJob();
        assertThat(server.messages()).doesNotContain("LEASE_LOST");
    }

    private void refundsAcceptanceCase() throws Exception {
        String recorded = "[{\"order\":42,\"amountCents\":1999},{\"order\":43,\"amountCents\":500},"
                + "{\"order\":44,\"amountCents\":700}]";
        String mailed = "[{\"order\":42},{\"order\":43},{\"order\":44}]";
        assertThat(server.post("/refunds", "{\"order\": 42, \"amountCents\": 1999}").statusCode()).isEqualTo(202);
        // The processor times out on 43's first call (a retry) and fails 44's (the handler throws):
        // both roll back the record and the receipt, and the second attempt leaves one of each.
        assertThat(server.post("/refunds", "{\"order\": 43, \"amountCents\": 500, \"failFirst\": true}").statusCode())
                .isEqualTo(202);
        assertThat(server.post("/refunds", "{\"order\": 44, \"amountCents\": 700, \"crashFirst\": true}").statusCode())
                .isEqualTo(202);
        await(() -> body("/receipts").equals(mailed), "every receipt mailed");
        await(() -> body("/queues").contains("\"refunds\":{\"ready\":0,\"inWork\":0,\"dead\":0}"),
                "the refunds queue drained");
        assertThat(body("/refunds")).isEqualTo(recorded);

        // The same refund again changes nothing: its record's key refuses it, the job is dead-lettered.
        assertThat(server.post("/refunds", "{\"order\": 42, \"amountCents\": 1999}").statusCode()).isEqualTo(202);
        await(() -> body("/queues").contains("\"refunds\":{\"ready\":0,\"inWork\":0,\"dead\":1}"),
                "the duplicate refund dead-lettered");
        assertThat(body("/refunds")).isEqualTo(recorded);
        assertThat(body("/receipts")).isEqualTo(mailed);
        assertThat(server.post("/refunds", "{\"order\": 46, \"amountCents\"").statusCode()).isEqualTo(400);
    }

    private void thumbnails() throws Exception {
        // Refused after its publish: the request's transaction rolls back, and the job with it.
        assertThat(server.post("/thumbnails", "{\"path\": \"notes.txt\"}").statusCode()).isEqualTo(422);
        assertThat(server.post("/thumbnails", "{\"path\": \"cat.png\"}").statusCode()).isEqualTo(202);
        await(() -> body("/thumbnails").equals("[\"cat.png\"]"), "the thumbnail rendered");
        assertThat(count("thumbnail_jobs")).isZero();
    }

    private void aConfigOverrideSetsTheLeaseAndTheKeeperKeepsALongReportAlive() throws Exception {
        server.post("/reports", "{\"name\": \"q1\"}");
        await(() -> lockedUntil("report_jobs") != null, "the report claimed");
        Duration lease = Duration.between(Instant.now(), lockedUntil("report_jobs"));
        assertThat(lease).as("the lease the claim wrote").isLessThan(Duration.ofSeconds(4));
        await(() -> body("/reports").equals("[\"q1\"]"), "the report rendered after outliving its lease");
        Thread.sleep(3000);
        assertThat(body("/reports")).as("rendered once: the keeper held the row").isEqualTo("[\"q1\"]");
    }

    private void aStopDuringWorkLosesNoJob() throws Exception {
        server.post("/reports", "{\"name\": \"q2\"}");
        server.post("/reports", "{\"name\": \"q3\"}");
        await(() -> lockedUntil("report_jobs") != null, "a report in work");
        server.stop();
        server.start();
        await(() -> body("/reports").contains("q2") && body("/reports").contains("q3"), "every report rendered");
        assertThat(count("report_jobs")).isZero();
    }

    // ---- the database behind the server ----

    private Connection connect() throws SQLException {
        return switch (db) {
            case "postgres" -> DriverManager.getConnection(url("inbox.test.postgres.url",
                    "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
            case "mariadb" -> DriverManager.getConnection(url("inbox.test.mariadb.url",
                    "jdbc:mariadb://127.0.0.1:3306/test?user=root"));
            default -> DriverManager.getConnection("jdbc:sqlite:" + server.outputDir().resolve("inbox.db"));
        };
    }

    private static String url(String property, String fallback) {
        String url = System.getProperty(property);
        return url == null || url.isBlank() || url.startsWith("${") ? fallback : url;
    }

    private void dropTables() throws Exception {
        if (db.equals("sqlite")) {
            Files.deleteIfExists(server.outputDir().resolve("inbox.db"));
            return;
        }
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String table : TABLES) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    private long count(String table) {
        try (Connection c = connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The lease of the first leased row of {@code table}, or null. */
    private Instant lockedUntil(String table) {
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT locked_until FROM " + table + " WHERE locked_until IS NOT NULL")) {
            if (!rs.next()) {
                return null;
            }
            return switch (db) {
                case "postgres" -> rs.getObject(1, OffsetDateTime.class).toInstant();
                case "mariadb" -> rs.getObject(1, LocalDateTime.class).toInstant(ZoneOffset.UTC);
                default -> Instant.parse(rs.getString(1));
            };
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private String body(String path) {
        try {
            return server.get(path).body();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("after 60 s: " + what);
            }
            Thread.sleep(200);
        }
    }
}
