package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sample EAR on WildFly, deployed by Arquillian on the database of this run ({@code inbox.test.db},
 * one failsafe execution each): the refunds handler's transactional deliveries, the receipts they
 * publish, and the message-driven ledger bean, whose rollbacks come again and whose bookings commit
 * once with their jobs; a publish rolled back with its request; a lease set by MicroProfile Config.
 * The server keeps its data between runs, so each run takes orders and names of its own.
 */
@ExtendWith(ArquillianExtension.class)
class SampleOnWildFlyIT {
    private static final String BASE = "http://127.0.0.1:8080/sample/api";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String db = System.getProperty("inbox.test.db", "sqlite");
    private final ItDatabase database = new ItDatabase(db,
            Path.of(System.getProperty("inbox.test.wildfly.home"), "standalone", "data"));

    /** The EAR the build made, under its own name: wildfly-config binds the RAR inside it by that name. */
    @Deployment(testable = false)
    static EnterpriseArchive sample() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class,
                new File(System.getProperty("inbox.test.sample.ear")));
    }

    @Test
    void refundsAndLedgerBookingsCommitOnceWithTheirJobs() throws Exception {
        assertThat(get("/health")).as("the data source of this run").contains(switch (db) {
            case "postgres" -> "PostgreSQL";
            case "mariadb" -> "MariaDB";
            default -> "SQLite";
        });
        long order = System.currentTimeMillis() % 100_000_000_000L; // orders of this run
        // A refund, one whose card processor times out on the first call (a retry), one whose
        // processor fails (the handler throws): each first attempt rolls back its record, receipt
        // job and ledger job.
        assertThat(post("/refunds", "{\"order\": " + order + ", \"amountCents\": 1999}")).isEqualTo(202);
        assertThat(post("/refunds", "{\"order\": " + (order + 1) + ", \"amountCents\": 500, \"failFirst\": true}"))
                .isEqualTo(202);
        assertThat(post("/refunds", "{\"order\": " + (order + 2) + ", \"amountCents\": 700, \"crashFirst\": true}"))
                .isEqualTo(202);
        // Bookings straight to the ledger bean: its retry and its exception roll its write back.
        assertThat(post("/ledger", "{\"order\": " + (order + 3) + ", \"amountCents\": 300, \"failFirst\": true}"))
                .isEqualTo(202);
        assertThat(post("/ledger", "{\"order\": " + (order + 4) + ", \"amountCents\": 400, \"crashFirst\": true}"))
                .isEqualTo(202);

        String range = " WHERE order_id BETWEEN " + order + " AND " + (order + 4);
        ItDatabase.await(() -> database.count("receipts_mailed" + range) == 3 && database.count("ledger" + range) == 5,
                Duration.ofSeconds(60), "three receipts mailed and five bookings");
        assertThat(database.count("refunds" + range)).as("one record per refund").isEqualTo(3);
        for (long o = order; o <= order + 4; o++) {
            assertThat(database.count("ledger WHERE order_id = " + o)).as("bookings of order " + o).isEqualTo(1);
        }
        assertThat(database.count("ledger WHERE order_id = " + order + " AND amount_cents = -1999")).isEqualTo(1);
        assertThat(database.count("ledger WHERE order_id = " + (order + 3) + " AND amount_cents = 300")).isEqualTo(1);
        ItDatabase.await(() -> get("/queues").contains("\"ledger\":{\"ready\":0,\"inWork\":0")
                && get("/queues").contains("\"refunds\":{\"ready\":0,\"inWork\":0"), Duration.ofSeconds(30),
                "the queues drained");
    }

    @Test
    void aPublishInARolledBackRequestLeavesNoJob() throws Exception {
        long run = System.currentTimeMillis();
        // The resource publishes, then refuses the file: the request's transaction rolls back, the job with it.
        assertThat(post("/thumbnails", "{\"path\": \"notes-" + run + ".txt\"}")).isEqualTo(422);
        assertThat(post("/thumbnails", "{\"path\": \"cat-" + run + ".png\"}")).isEqualTo(202);
        ItDatabase.await(() -> database.count("thumbnails_rendered WHERE path = 'cat-" + run + ".png'") == 1,
                Duration.ofSeconds(60), "the thumbnail rendered");
        assertThat(database.count("thumbnails_rendered WHERE path LIKE 'notes-" + run + "%'")).isZero();
    }

    /** MicroProfile Config (arquillian.xml's system properties) sets the reports' lease; the keeper extends it. */
    @Test
    void aConfigOverrideSetsTheLeaseAndTheKeeperKeepsALongReportAlive() throws Exception {
        String name = "report-" + System.currentTimeMillis();
        assertThat(post("/reports", "{\"name\": \"" + name + "\"}")).isEqualTo(202);
        ItDatabase.await(() -> database.lockedUntil("report_jobs") != null, Duration.ofSeconds(30), "the report claimed");
        Duration lease = Duration.between(Instant.now(), database.lockedUntil("report_jobs"));
        assertThat(lease).as("the lease the claim wrote (inbox.queue.reports.lease=PT2S)").isLessThan(Duration.ofSeconds(4));
        String rendered = "reports_rendered WHERE name = '" + name + "'";
        ItDatabase.await(() -> database.count(rendered) == 1, Duration.ofSeconds(60),
                "the report rendered after outliving its lease");
        Thread.sleep(3000);
        assertThat(database.count(rendered)).as("rendered once: the keeper held the row").isEqualTo(1);
    }

    private String get(String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(BASE + path)).timeout(Duration.ofSeconds(30)).GET()
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private int post(String path, String json) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(BASE + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
