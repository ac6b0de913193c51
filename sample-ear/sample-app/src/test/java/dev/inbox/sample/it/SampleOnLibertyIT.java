package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
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
 * is DOWN naming the queue and its table, and UP again once the database is back). The sample's
 * behaviour on both servers is {@link SampleIT}'s.
 */
class SampleOnLibertyIT {
    private static final String READY = "http://127.0.0.1:9080/health/ready";
    private static final String LIVE = "http://127.0.0.1:9080/health/live";

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
                "inbox.bogus-option=1"));
        server.start();
        unknownKeysAreNamedWithTheKeyMeant();
        aDatabaseOutOfReachAnswers503WithRetryAfter();
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
            // MicroProfile Health: not ready, naming the queue and its table, while the loops still come round.
            await(() -> status(READY) == 503, "/health/ready DOWN while the database is stopped");
            assertThat(server.api().getAt(READY).body()).contains("\"inbox-ready\"", "DOWN",
                    "queue refunds", "claiming from table refund_jobs");
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

    private int status(String url) {
        try {
            return server.api().getAt(url).statusCode();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private void stopDatabase() throws IOException, InterruptedException {
        shell(db.equals("postgres") ? "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql | head -n 1) main stop"
                : "mariadb-admin --protocol=TCP -h 127.0.0.1 -u root shutdown"
                        + " && for i in $(seq 1 600); do pgrep -x mariadbd >/dev/null || exit 0; sleep 0.1; done; exit 1");
    }

    private void startDatabase() throws IOException, InterruptedException {
        shell(db.equals("postgres") ? "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql | head -n 1) main start"
                : "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd && for i in $(seq 1 300);"
                        + " do mariadb-admin --protocol=TCP -h 127.0.0.1 -u root ping >/dev/null 2>&1 && exit 0;"
                        + " sleep 0.1; done; exit 1");
    }

    private static void shell(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(command + " failed: " + out);
        }
    }

    private void dropTables() throws Exception {
        database = new ItDatabase(db, server.outputDir());
        database.drop(ItDatabase.SAMPLE_TABLES);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        ItDatabase.await(condition, Duration.ofSeconds(60), what);
    }
}
