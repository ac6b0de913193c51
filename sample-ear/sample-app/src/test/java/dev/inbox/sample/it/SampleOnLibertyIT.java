package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sample on Open Liberty where a test chooses the server's configuration and reads its log:
 * settings a careless operator writes (each unknown key named once with the key meant, a bad value
 * failing the deployment in one clear line, an adapter bound nowhere), and the database stopped under
 * the running sample (a publish answers 503 with Retry-After; Inbox's MicroProfile Health readiness
 * is DOWN naming the queue, the console's api/health its table, and UP again once the database is
 * back), the console's headers and TRACE, and Inbox's
 * metrics of a known load in the exporter the server logs to. The sample's behaviour on both
 * servers is {@link SampleIT}'s.
 */
class SampleOnLibertyIT {
    private static final String READY = "http://127.0.0.1:9080/health/ready";
    private static final String LIVE = "http://127.0.0.1:9080/health/live";
    private static final String PASSWORD = "console-" + System.nanoTime();

    private final LibertyServer server = new LibertyServer();
    private String db;
    private ItDatabase database;

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"postgres", "mariadb"})
    void unknownKeysAreNamedAndADatabaseOutOfReachAnswers503(String database) throws Exception {
        db = database;
        dropTables();
        // Keys a careless operator might write: each is named in one warning with the key meant.
        server.configure(db, List.of("inbox.queue.refunds.wrokers=8", "inbox.queue.refundz.workers=8",
                "inbox.bogus-option=1", "sample.admin.password=" + PASSWORD));
        server.start();
        unknownKeysAreNamedWithTheKeyMeant();
        aDatabaseOutOfReachAnswers503WithRetryAfter();
    }

    /**
     * A known load on PostgreSQL: five refunds, one more whose handler throws on its first attempt, and a
     * duplicate that is dead-lettered. The logging exporter the sample's server uses (messages.log,
     * here every second) shows each count, the depth and the durations.
     */
    @Test
    void theMetricsOfAKnownLoadReachTheSamplesExporter() throws Exception {
        db = "postgres";
        dropTables();
        server.configure(db, List.of("otel.metric.export.interval=1000"));
        server.start();
        SampleApi api = server.api();
        for (int order = 1; order <= 5; order++) {
            assertThat(api.post("/refunds", "{\"order\": " + order + ", \"amountCents\": 100}").statusCode())
                    .isEqualTo(202);
        }
        assertThat(api.post("/refunds", "{\"order\": 6, \"amountCents\": 100, \"crashFirst\": true}").statusCode())
                .isEqualTo(202);
        assertThat(api.post("/refunds", "{\"order\": 1, \"amountCents\": 100}").statusCode()).isEqualTo(202);
        Map<String, String> refunds = Map.of("messaging.system", "inbox", "messaging.destination.name", "refunds");
        await(() -> Double.valueOf(1).equals(exported().value("inbox.queue.jobs", with(refunds, "inbox.job.state",
                "dead"))) && Double.valueOf(6).equals(exported().value("inbox.jobs.handled", with(refunds,
                "inbox.outcome", "ack"))), "the load's metrics exported");

        ExportedMetrics metrics = exported();
        assertThat(metrics.value("messaging.client.sent.messages", refunds)).isEqualTo(7);
        assertThat(metrics.value("messaging.client.consumed.messages", refunds)).as("six refunds, one twice")
                .isEqualTo(8);
        assertThat(metrics.value("inbox.jobs.handled", with(refunds, "inbox.outcome", "retry"))).isEqualTo(1);
        assertThat(metrics.value("inbox.jobs.handled", with(refunds, "inbox.outcome", "dead_letter"))).isEqualTo(1);
        for (String state : List.of("ready", "in_work", "scheduled")) {
            assertThat(metrics.value("inbox.queue.jobs", with(refunds, "inbox.job.state", state))).as(state).isZero();
        }
        assertThat(metrics.value("inbox.queue.oldest_ready.age", refunds)).as("refund_jobs has published_at")
                .isZero();
        assertThat(metrics.lastLine("messaging.process.duration")).contains("unit=s");
        assertThat(metrics.histogramCount("messaging.process.duration", refunds)).as("handler calls").isEqualTo(8);
        assertThat(metrics.histogramCount("messaging.process.duration", with(refunds, "error.type",
                "java.lang.IllegalStateException"))).as("order 6's first attempt threw").isEqualTo(1);
        assertThat(metrics.lastLine("messaging.client.operation.duration")).contains("unit=s");
        assertThat(metrics.histogramCount("messaging.client.operation.duration", with(refunds,
                "messaging.operation.name", "receive"))).as("claims").isPositive();
    }

    /**
     * The console's API on MariaDB, as the sample's administrator: a duplicate refund's dead letter
     * listed, retried once its cause is gone (handled, then NOT_FOUND when retried again), another
     * deleted; the refunds queue paused (a refund waits) and resumed (it is recorded); strangers and
     * users without the role refused, bad ids, queues and limits answered with a 4xx.
     */
    @Test
    void theConsoleApiRetriesDeletesPausesAndRefusesOthers() throws Exception {
        ConsoleApi admin = startWithAdmin("mariadb");
        SampleApi api = server.api();
        assertThat(new ConsoleApi(null, null).get("/api/queues").statusCode()).as("no credentials").isEqualTo(401);
        assertThat(new ConsoleApi("admin", "wrong").get("/api/queues").statusCode()).isEqualTo(401);
        assertThat(new ConsoleApi("viewer", PASSWORD).get("/api/queues").statusCode()).as("no role").isEqualTo(403);
        assertThat(admin.get("/api/queues").body()).contains("\"refunds\":{\"queue\":\"refunds\"");

        // A duplicate refund is dead-lettered; once its record is gone, a retry records it.
        assertThat(api.post("/refunds", "{\"order\": 1, \"amountCents\": 100}").statusCode()).isEqualTo(202);
        await(() -> database.count("refunds") == 1, "refund 1 recorded");
        assertThat(api.post("/refunds", "{\"order\": 1, \"amountCents\": 100}").statusCode()).isEqualTo(202);
        await(() -> admin.body("/api/queues/refunds/dead-letters").contains("not recorded"), "the duplicate dead");
        String id = firstId(admin.body("/api/queues/refunds/dead-letters"));
        assertThat(admin.post("/api/queues/refunds/dead-letters/" + id + "/retry", false).statusCode())
                .as("no API header").isEqualTo(403);
        database.execute("DELETE FROM refunds");
        assertThat(admin.post("/api/queues/refunds/dead-letters/" + id + "/retry", true).statusCode()).isEqualTo(204);
        await(() -> database.count("refunds") == 1 && database.count("refund_dead") == 0, "the retried refund recorded");
        HttpResponse<String> again = admin.post("/api/queues/refunds/dead-letters/" + id + "/retry", true);
        assertThat(again.statusCode()).isEqualTo(404);
        assertThat(again.body()).contains("has no dead letter " + id);

        assertThat(api.post("/refunds", "{\"order\": 1, \"amountCents\": 100}").statusCode()).isEqualTo(202);
        await(() -> database.count("refund_dead") == 1, "another duplicate dead");
        String other = firstId(admin.body("/api/queues/refunds/dead-letters"));
        // The letter's own page and API answer: its whole payload, its error, the console's headers.
        HttpResponse<String> page = admin.get("/queues/refunds/dead-letters/" + other);
        assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
        assertThat(page.body()).contains("<h1>Dead letter " + other + "</h1>", "amountCents", "not recorded")
                .doesNotContain("payload-cut");
        assertThat(page.headers().firstValue("X-Frame-Options")).contains("DENY");
        assertThat(admin.body("/api/queues/refunds/dead-letters/" + other)).contains("\"id\":" + other, "amountCents",
                "\"payloadCut\":false");
        assertThat(admin.get("/queues/refunds/dead-letters/9" + other + "9").statusCode()).as("no such letter")
                .isEqualTo(404);
        assertThat(admin.delete("/api/queues/refunds/dead-letters/" + other).statusCode()).isEqualTo(204);
        assertThat(database.count("refund_dead")).isZero();
        assertThat(admin.delete("/api/queues/refunds/dead-letters/" + other).statusCode()).isEqualTo(404);

        assertThat(admin.post("/api/queues/refunds/pause", true).statusCode()).isEqualTo(204);
        assertThat(admin.body("/api/queues")).contains("\"queue\":\"refunds\"", "\"paused\":true");
        assertThat(api.post("/refunds", "{\"order\": 2, \"amountCents\": 200}").statusCode()).isEqualTo(202);
        Thread.sleep(3_000); // three poll intervals
        assertThat(database.count("refunds")).as("refund 2 waits while the queue is paused").isEqualTo(1);
        assertThat(database.count("refund_jobs")).isEqualTo(1);
        assertThat(admin.post("/api/queues/refunds/resume", true).statusCode()).isEqualTo(204);
        await(() -> database.count("refunds") == 2, "refund 2 recorded once resumed");

        assertThat(admin.get("/api/queues/nowhere/dead-letters").statusCode()).isEqualTo(404);
        assertThat(admin.post("/api/queues/nowhere/pause", true).statusCode()).isEqualTo(404);
        assertThat(admin.get("/api/queues/refunds/dead-letters?limit=0").statusCode()).isEqualTo(400);
        assertThat(admin.get("/api/queues/thumbnails/dead-letters").statusCode()).as("no dead-letter table")
                .isEqualTo(404);
        assertThat(admin.get("/").body()).contains("<h1>Inbox queues</h1>", "data-queue=\"refunds\"");
    }

    /**
     * On SQLite: every console answer (a page, the API, an error) forbids framing and sniffing;
     * TRACE is refused on the console and on the health endpoints; with its table renamed away, the
     * refunds queue is DOWN in /health/ready without the table's name or the database's error, which
     * the console's api/health tells the administrator, and which /health/ready tells too once
     * {@code inbox.health.details=true}.
     */
    @Test
    void theConsoleCannotBeFramedRefusesTraceAndHealthKeepsItsDetails() throws Exception {
        ConsoleApi admin = startWithAdmin("sqlite");
        for (String path : List.of("/", "/queues/refunds", "/api/queues", "/api/health", "/nowhere", "/api/nowhere")) {
            HttpResponse<String> answer = admin.get(path);
            assertThat(answer.headers().firstValue("X-Frame-Options")).as(path).contains("DENY");
            assertThat(answer.headers().firstValue("X-Content-Type-Options")).as(path).contains("nosniff");
            assertThat(answer.headers().firstValue("Content-Security-Policy")).as(path)
                    .hasValueSatisfying(policy -> assertThat(policy).contains("frame-ancestors 'none'"));
        }
        for (String url : List.of(ConsoleApi.BASE + "/", ConsoleApi.BASE + "/api/queues")) {
            HttpResponse<String> trace = admin.at("TRACE", url);
            assertThat(trace.statusCode()).as("TRACE " + url + ": " + trace.body()).isEqualTo(405);
            assertThat(trace.body()).as("TRACE " + url).doesNotContain("Authorization", "Basic ");
        }
        // The server's own answers: 403 for servlets (health), 405 for JAX-RS, 404 where the welcome page was.
        for (String url : List.of(READY, LIVE, "http://127.0.0.1:9080/sample/api/refunds", "http://127.0.0.1:9080/")) {
            HttpResponse<String> trace = admin.at("TRACE", url);
            assertThat(trace.statusCode()).as("TRACE " + url + ": " + trace.body()).isIn(403, 404, 405);
            assertThat(trace.body()).as("TRACE " + url).doesNotContain("Authorization", "Basic ");
        }

        database.execute("ALTER TABLE refund_jobs RENAME TO refund_jobs_away");
        try {
            await(() -> status(READY) == 503, "/health/ready DOWN with refund_jobs renamed away");
            String ready = readyBody();
            assertThat(ready).contains("\"queue refunds\":\"DOWN (the console's api/health says why")
                    .doesNotContain("refund_jobs", "SQL");
            await(() -> admin.body("/api/health").contains("claiming from table refund_jobs"),
                    "the console's api/health naming the failing table");
            assertThat(admin.body("/api/health")).contains("\"ready\":false");
            assertThat(new ConsoleApi("viewer", PASSWORD).get("/api/health").statusCode()).as("no role").isEqualTo(403);
        } finally {
            database.execute("ALTER TABLE refund_jobs_away RENAME TO refund_jobs");
        }
        await(() -> status(READY) == 200, "/health/ready UP again with refund_jobs back");

        server.stop();
        server.configure(db, List.of("sample.admin.password=" + PASSWORD, "inbox.health.details=true"));
        server.startAgain();
        database.execute("ALTER TABLE refund_jobs RENAME TO refund_jobs_away");
        try {
            await(() -> readyBody().contains("claiming from table refund_jobs"),
                    "/health/ready naming the failing table with inbox.health.details=true");
        } finally {
            database.execute("ALTER TABLE refund_jobs_away RENAME TO refund_jobs");
        }
    }

    /** Starts the sample on {@code database}, its tables dropped, and signs in as its administrator. */
    private ConsoleApi startWithAdmin(String database) throws Exception {
        db = database;
        dropTables();
        server.configure(db, List.of("sample.admin.password=" + PASSWORD));
        server.start();
        return new ConsoleApi("admin", PASSWORD);
    }

    private static String firstId(String deadLetters) {
        java.util.regex.Matcher id = java.util.regex.Pattern.compile("\"id\":(\\d+)").matcher(deadLetters);
        assertThat(id.find()).as("a dead letter in " + deadLetters).isTrue();
        return id.group(1);
    }

    private ExportedMetrics exported() {
        try {
            return new ExportedMetrics(server.messages());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Map<String, String> with(Map<String, String> attributes, String key, String value) {
        Map<String, String> more = new java.util.HashMap<>(attributes);
        more.put(key, value);
        return more;
    }

    @Test
    void anAdapterBoundNowhereFailsTheDeploymentNamingWhatToDeclare() throws Exception {
        db = "sqlite";
        server.configure(db, List.of("inbox.adapter=inbox/nowhere"));
        String messages = server.startRefused();
        assertThat(messages).contains("no Inbox adapter at JNDI name inbox/nowhere",
                "<adminObject jndiName=\"inbox/nowhere\"><properties.APP.RAR/></adminObject>");
        assertThat(messages.lines().filter(line -> line.contains("at dev.inbox."))).as("stack trace lines of Inbox")
                .isEmpty();
    }

    @Test
    void aBadOptionValueFailsTheDeploymentWithOneClearLine() throws Exception {
        db = "sqlite";
        dropTables();
        server.configure(db, List.of("inbox.queue.refunds.workers=many"));
        String messages = server.startRefused();
        assertThat(messages).contains("inbox.queue.refunds.workers = 'many' is not a valid workers: write a whole"
                + " number");
        assertThat(messages.lines().filter(line -> line.contains("at dev.inbox."))).as("stack trace lines of Inbox")
                .isEmpty();
    }

    private void unknownKeysAreNamedWithTheKeyMeant() throws Exception {
        String messages = server.messages();
        assertThat(messages).contains("inbox.queue.refunds.wrokers is not an Inbox setting",
                "did you mean inbox.queue.refunds.workers?", "inbox.queue.refundz.workers is not an Inbox setting",
                "inbox.bogus-option is not an Inbox setting");
        assertThat(messages.lines().filter(line -> line.contains("inbox.queue.refunds.wrokers is not"))).hasSize(1);
        assertThat(messages).as("the server configuration's own variable").doesNotContain("key inbox.db is not");
    }

    /** The database stopped under the sample: a publish answers 503 with Retry-After, and works once it is back. */
    private void aDatabaseOutOfReachAnswers503WithRetryAfter() throws Exception {
        var ready = server.api().getAt(READY);
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(ready.body()).contains("\"inbox-ready\"", "\"queue refunds\":\"UP\"");
        stopDatabase();
        try {
            var refused = server.api().post("/refunds", "{\"order\": 48, \"amountCents\": 100}");
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).contains("5");
            assertThat(refused.body()).contains("the database is out of reach").doesNotContain("Exception")
                    .doesNotContain("SQL");
            // MicroProfile Health: not ready, naming the queue, while the loops still come round.
            await(() -> status(READY) == 503, "/health/ready DOWN while the database is stopped");
            // Each queue is DOWN once its own claim has failed: another queue's may fail first. The
            // check says DOWN; the console's api/health says why, to the administrator.
            ConsoleApi admin = new ConsoleApi("admin", PASSWORD);
            await(() -> admin.body("/api/health").contains("claiming from table refund_jobs"),
                    "the console's api/health naming the refunds queue's failing claims");
            assertThat(server.api().getAt(READY).body()).contains("\"inbox-ready\"", "DOWN", "\"queue refunds\":\"DOWN")
                    .doesNotContain("refund_jobs");
            assertThat(status(LIVE)).as("live: the claim loops come round with back-off").isEqualTo(200);
        } finally {
            startDatabase();
        }
        await(() -> status(READY) == 200, "/health/ready UP again once the database is back");
        await(() -> {
            try {
                return server.api().post("/refunds", "{\"order\": 48, \"amountCents\": 100}").statusCode() == 202;
            } catch (IOException | InterruptedException e) {
                return false;
            }
        }, "a publish accepted again once the database is back");
        await(() -> server.api().body("/refunds").contains("{\"order\":48,"), "the refund handled");
    }

    private String readyBody() {
        try {
            return server.api().getAt(READY).body();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private int status(String url) {
        try {
            return server.api().getAt(url).statusCode();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private void stopDatabase() throws IOException, InterruptedException {
        database.stopServer();
    }

    private void startDatabase() throws IOException, InterruptedException {
        database.startServer();
    }

    private void dropTables() throws Exception {
        database = new ItDatabase(db, server.outputDir());
        database.drop(ItDatabase.SAMPLE_TABLES);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        ItDatabase.await(condition, Duration.ofSeconds(60), what);
    }
}
