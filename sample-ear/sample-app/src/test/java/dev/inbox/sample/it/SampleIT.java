package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import org.jboss.arquillian.container.test.api.ContainerController;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sample EAR on a real server, through Arquillian: the same tests on Open Liberty, WildFly, Payara
 * and GlassFish (failsafe's {@code arquillian.launch} names the container of {@code arquillian.xml}), on SQLite,
 * PostgreSQL and MariaDB ({@code inbox.test.db}). The refunds handler's transactional deliveries, the
 * receipts they publish and the message-driven ledger bean commit once with their jobs, a retry and
 * an exception rolling back first; bad requests get a clear answer; a publish rolls back with its
 * request; MicroProfile Config sets a lease the keeper extends; a stop with work in progress and a
 * {@code kill -9} amid a load of refunds lose nothing and double nothing.
 *
 * <p>The containers run in manual mode: the suite starts the server (on tables it dropped first),
 * deploys the EAR once, and stops and kills the server itself. What a server needs of its own (its
 * home, its port, its database's configuration) is in arquillian.xml and failsafe's executions.
 */
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SampleIT {
    private static final String SERVER = System.getProperty("arquillian.launch");
    /** The refunds of the kill test: orders apart from those of the other cases. */
    private static final int ORDERS = 400;
    private static final long FIRST_ORDER = 100_000;
    /** The lease of refunds and receipts that arquillian.xml sets, so that rows a kill leaves come back soon. */
    private static final String CRASH_LEASE = "PT5S";
    /** The drain timeout that arquillian.xml sets: a stop with reports in work must end within it and 5 s. */
    private static final Duration DRAIN = Duration.ofSeconds(15);
    /**
     * What arquillian.xml gives Open Liberty and WildFly as JVM arguments, for the GlassFish and
     * Payara domains the suite starts itself: MicroProfile Config through system properties.
     */
    private static final List<String> DOMAIN_SETTINGS = List.of("inbox.queue.reports.lease=PT2S",
            "sample.reports.render-time=PT5S", "inbox.queue.refunds.lease=" + CRASH_LEASE,
            "inbox.queue.receipts.lease=" + CRASH_LEASE, "inbox.drain-timeout=PT15S",
            "inbox.recurring.nightly-report.enabled=false");
    /** Once per run (one JVM per failsafe execution): the tables dropped, the EAR deployed. */
    private static boolean tablesDropped;
    private static boolean deployed;

    private final String db = System.getProperty("inbox.test.db", "sqlite");
    private final ItDatabase database = new ItDatabase(db, Path.of(System.getProperty("inbox.test.server.data")));
    private final SampleApi api = new SampleApi(System.getProperty("inbox.test.base.url"));
    /** The domain of a Payara or GlassFish run (null on the others), whose pools serve every database. */
    private final Asadmin domain = Asadmin.ofThisRun();

    @ArquillianResource
    private ContainerController servers;

    @ArquillianResource
    private Deployer deployer;

    /** The EAR the build made, under its own name, which both servers' configurations use. */
    @Deployment(name = "sample", managed = false, testable = false)
    static EnterpriseArchive sample() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class,
                new File(System.getProperty("inbox.test.sample.ear")));
    }

    /** A GlassFish or Payara domain is the suite's to stop: its container leaves running what it did not start. */
    @AfterAll
    static void stopTheDomain() throws Exception {
        Asadmin domain = Asadmin.ofThisRun();
        if (domain != null) {
            domain.stopIfRunning();
        }
    }

    /** The server up with the sample: started (on fresh tables the first time) and the EAR deployed once. */
    @BeforeEach
    void serverWithTheSample() throws Exception {
        if (servers.isStarted(SERVER)) {
            return;
        }
        if (!tablesDropped) {
            database.drop(ItDatabase.SAMPLE_TABLES);
            tablesDropped = true;
        }
        startServer();
        if (!deployed) {
            if (domain != null) {
                domain.undeployIfDeployed("sample-app", DOMAIN_SETTINGS);
                domain.useDatabase(db);
            }
            deployer.deploy("sample");
            deployed = true;
        }
        api.awaitSample();
    }

    @Test
    @Order(1)
    void refundsCommitOnceWithTheirReceiptsAndBookings() throws Exception {
        assertThat(api.body("/database")).as("the data source of this run").contains(switch (db) {
            case "postgres" -> "PostgreSQL";
            case "mariadb" -> "MariaDB";
            default -> "SQLite";
        });
        String recorded = "[{\"order\":42,\"amountCents\":1999},{\"order\":43,\"amountCents\":500},"
                + "{\"order\":44,\"amountCents\":700}]";
        String mailed = "[{\"order\":42},{\"order\":43},{\"order\":44}]";
        var first = api.post("/refunds", "{\"order\": 42, \"amountCents\": 1999}");
        assertThat(first.statusCode()).isEqualTo(202);
        assertThat(first.body()).as("the refund's job id").matches("\\{\"job\":[1-9][0-9]*}");
        // The processor times out on 43's first call (a retry) and fails 44's (the handler throws):
        // both roll back the record and the receipt, and the second attempt leaves one of each.
        assertThat(api.post("/refunds", "{\"order\": 43, \"amountCents\": 500, \"failFirst\": true}").statusCode())
                .isEqualTo(202);
        assertThat(api.post("/refunds", "{\"order\": 44, \"amountCents\": 700, \"crashFirst\": true}").statusCode())
                .isEqualTo(202);
        await(() -> api.body("/receipts").equals(mailed), "every receipt mailed");
        await(() -> api.body("/queues").contains("\"refunds\":{\"ready\":0,\"inWork\":0,\"scheduled\":0,\"dead\":0,"
                + "\"oldestReadySeconds\":0}"),
                "the refunds queue drained");
        assertThat(api.body("/refunds")).isEqualTo(recorded);
        assertHealthy();
        // Each refund's booking job committed with it; the message-driven bean books it once.
        String booked = "[{\"order\":42,\"amountCents\":-1999},{\"order\":43,\"amountCents\":-500},"
                + "{\"order\":44,\"amountCents\":-700}]";
        await(() -> api.body("/ledger").equals(booked), "every refund booked in the ledger");

        // The same refund again changes nothing: its record's key refuses it, the job is dead-lettered.
        assertThat(api.post("/refunds", "{\"order\": 42, \"amountCents\": 1999}").statusCode()).isEqualTo(202);
        await(() -> api.body("/queues").contains("\"refunds\":{\"ready\":0,\"inWork\":0,\"scheduled\":0,\"dead\":1,"
                + "\"oldestReadySeconds\":0}"),
                "the duplicate refund dead-lettered");
        assertThat(api.body("/refunds")).isEqualTo(recorded);
        assertThat(api.body("/receipts")).isEqualTo(mailed);
        assertThat(api.body("/ledger")).isEqualTo(booked);
        assertThat(api.post("/refunds", "{\"order\": 46, \"amountCents\"").statusCode()).isEqualTo(400);

        // An operator retries it through InboxAdmin, in a JTA transaction that records the reason:
        // without one the record fails, and the retry rolls back with it; with one both commit.
        java.util.regex.Matcher dead = java.util.regex.Pattern.compile("\"id\":(\\d+)").matcher(api.body("/refunds/dead"));
        assertThat(dead.find()).as(api.body("/refunds/dead")).isTrue();
        String letter = dead.group(1);
        database.execute("DELETE FROM refunds WHERE order_id = 42");
        assertThat(api.post("/refunds/dead/" + letter + "/retry", "{}").statusCode()).isEqualTo(422);
        assertThat(api.body("/refunds/dead")).as("the retry rolled back").contains("\"id\":" + letter);
        assertThat(database.count("refund_jobs") + database.count("refund_retries")).isZero();
        assertThat(api.post("/refunds/dead/" + letter + "/retry", "{\"reason\": \"record removed\"}").statusCode())
                .isEqualTo(204);
        await(() -> api.body("/refunds").equals(recorded), "the retried refund recorded again");
        assertThat(api.body("/refunds/dead")).isEqualTo("[]");
        assertThat(database.count("refund_retries")).isEqualTo(1);
        assertThat(api.post("/refunds/dead/" + letter + "/retry", "{\"reason\": \"again\"}").statusCode())
                .as("no such letter any more").isEqualTo(404);
        // Its receipt and booking come once more: the later tests start from a settled ledger.
        await(() -> api.body("/ledger").split("\"order\":42,", -1).length == 3, "the retried refund booked");
        await(() -> api.body("/receipts").split("\"order\":42", -1).length == 3, "the retried refund's receipt");
    }

    /**
     * The server's MicroProfile Health readiness holds Inbox's check, with no code in the sample: UP,
     * naming each queue of the application's handlers and of its message-driven bean (the ledger's,
     * a subscription the adapter opened for the bean). Open Liberty's mpHealth feature and Payara's
     * MicroProfile Health serve it on the HTTP port. WildFly's microprofile-health-smallrye subsystem
     * (on the management port) does not register the checks of an EAR's subdeployments (WFLY-12835),
     * so there it answers for the server and its deployments only. GlassFish 7 has no MicroProfile
     * Health: nothing answers there.
     */
    private void assertHealthy() throws Exception {
        String ready = System.getProperty("inbox.test.health.url");
        var response = api.getAt(ready);
        switch (SERVER) {
            case "glassfish" -> assertThat(response.statusCode()).as(ready + " on GlassFish 7").isEqualTo(404);
            case "wildfly" -> {
                assertThat(response.statusCode()).as(ready + ": " + response.body()).isEqualTo(200);
                assertThat(response.body()).contains("\"status\":\"UP\"", "sample-web.war");
            }
            default -> {
                assertThat(response.statusCode()).as(ready + ": " + response.body()).isEqualTo(200);
                assertThat(response.body()).contains("\"inbox-ready\"", "\"queue refunds\":\"UP\"",
                        "\"queue receipts\":\"UP\"", "\"queue ledger\":\"UP\"");
            }
        }
    }

    /**
     * The message-driven bean on the ledger queue (a queue no handler method takes, published to by
     * the application's {@code @Queue(table = ...)} publisher): its write commits with the ack in the
     * container's transaction; a retry and an exception roll the write back and the job comes again.
     */
    @Test
    @Order(2)
    void theLedgerBeanBooksOnceAndARollbackComesAgain() throws Exception {
        String before = api.body("/ledger");
        assertThat(api.post("/ledger", "{\"order\": 900, \"amountCents\": 250}").statusCode()).isEqualTo(202);
        assertThat(api.post("/ledger", "{\"order\": 901, \"amountCents\": -300, \"failFirst\": true}")
                .statusCode()).isEqualTo(202);
        assertThat(api.post("/ledger", "{\"order\": 902, \"amountCents\": 125, \"crashFirst\": true}")
                .statusCode()).isEqualTo(202);
        String after = before.substring(0, before.length() - 1) + ",{\"order\":900,\"amountCents\":250},"
                + "{\"order\":901,\"amountCents\":-300},{\"order\":902,\"amountCents\":125}]";
        await(() -> database.count("ledger_jobs") == 0, "the ledger queue drained");
        assertThat(api.body("/ledger")).as("one booking per job: the first attempts of 901 and 902 rolled back")
                .isEqualTo(after);
        assertThat(api.body("/queues")).contains("\"ledger\":{\"ready\":0,\"inWork\":0,\"scheduled\":0,\"dead\":0}");
        assertThat(api.post("/ledger", "{\"order\": -1, \"amountCents\": 5}").statusCode()).isEqualTo(400);
    }

    /** Input a careless client sends: 400 naming the field and the rule, escaped echoes, a limited body. */
    @Test
    @Order(3)
    void badRequestsGetAClearAnswer() throws Exception {
        var empty = api.post("/thumbnails", "{}");
        assertThat(empty.statusCode()).isEqualTo(400);
        assertThat(empty.body()).contains("\"field\":\"path\"", "\"rule\":\"must not be blank\"");
        assertThat(api.post("/thumbnails", "{\"path\": null}").body()).contains("\"field\":\"path\"");
        var huge = api.post("/refunds", "{\"order\": 99999999999999999999999, \"amountCents\": 5}");
        assertThat(huge.statusCode()).isEqualTo(400);
        assertThat(huge.body()).contains("\"field\":\"order\"", "less than or equal to 999999999999");
        var negative = api.post("/refunds", "{\"order\": 47, \"amountCents\": -5}");
        assertThat(negative.statusCode()).isEqualTo(400);
        assertThat(negative.body()).contains("\"field\":\"amountCents\"", "must be greater than 0");
        var quoted = api.post("/thumbnails", "{\"path\": \"a\\\"b</script>.txt\"}");
        assertThat(quoted.statusCode()).isEqualTo(422);
        assertThat(quoted.body()).startsWith("{").endsWith("}").contains("\"path\":\"a\\\"b</script>.txt\"");
        assertThat(api.post("/thumbnails", "{\"path\": \"" + "x".repeat(2_000) + ".png\"}").statusCode())
                .isEqualTo(400);
        assertThat(api.postLarge("/thumbnails", 2 << 20).statusCode()).as("a 2 MiB body").isEqualTo(413);
        assertThat(database.count("refund_jobs")).isZero();
    }

    @Test
    @Order(4)
    void aPublishInARolledBackRequestLeavesNoJob() throws Exception {
        // Refused after its publish: the request's transaction rolls back, and the job with it.
        assertThat(api.post("/thumbnails", "{\"path\": \"notes.txt\"}").statusCode()).isEqualTo(422);
        assertThat(api.post("/thumbnails", "{\"path\": \"cat.png\"}").statusCode()).isEqualTo(202);
        await(() -> api.body("/thumbnails").equals("[\"cat.png\"]"), "the thumbnail rendered");
        // The ack writer writes the ack a moment after the handler returns: the row goes then, and
        // no job of the rolled-back request is left behind.
        await(() -> database.count("thumbnail_jobs") == 0, "the thumbnail's job acked, and no other left");
        assertThat(api.body("/thumbnails")).isEqualTo("[\"cat.png\"]");
    }

    /** MicroProfile Config (arquillian.xml's system properties) sets the reports' lease; the keeper extends it. */
    @Test
    @Order(5)
    void aConfigOverrideSetsTheLeaseAndTheKeeperKeepsALongReportAlive() throws Exception {
        api.post("/reports", "{\"name\": \"q1\"}");
        await(() -> database.lockedUntil("report_jobs") != null, "the report claimed");
        Duration lease = Duration.between(Instant.now(), database.lockedUntil("report_jobs"));
        assertThat(lease).as("the lease the claim wrote (inbox.queue.reports.lease=PT2S)").isLessThan(Duration.ofSeconds(4));
        await(() -> api.body("/reports").equals("[\"q1\"]"), "the report rendered after outliving its lease");
        Thread.sleep(3000);
        assertThat(api.body("/reports")).as("rendered once: the keeper held the row").isEqualTo("[\"q1\"]");
    }

    /** A stop (the server's own, as an operator's) while reports are in work: the adapter drains, nothing is lost. */
    @Test
    @Order(6)
    void aStopDuringWorkLosesNoJob() throws Exception {
        api.post("/reports", "{\"name\": \"q2\"}");
        api.post("/reports", "{\"name\": \"q3\"}");
        await(() -> database.lockedUntil("report_jobs") != null, "a report in work");
        long t = System.nanoTime();
        stopServer();
        Duration stop = Duration.ofNanos(System.nanoTime() - t);
        System.out.printf(Locale.ROOT, "SampleIT: %s on %s: stopped with reports in work in %.1f s%n", SERVER, db,
                stop.toMillis() / 1000.0);
        assertThat(stop).as("the stop with reports in work").isLessThan(DRAIN.plusSeconds(5));
        startServer(); // the server deploys the sample again by itself
        api.awaitSample();
        await(() -> api.body("/reports").contains("q2") && api.body("/reports").contains("q3"), "every report rendered");
        // The last report's ack is written a moment after its handler returns, as the thumbnail's is.
        await(() -> database.count("report_jobs") == 0, "every report's job acked");
    }

    /**
     * Reliability: the server killed with {@code kill -9} while a backlog of refunds is in work, then
     * started again: every refund is recorded once, mailed and booked, whatever the kill cut.
     */
    @Test
    @Order(7)
    void aKillDuringALoadOfRefundsLosesNoneAndDoublesNone() throws Exception {
        RefundLoad load = new RefundLoad(database, FIRST_ORDER, ORDERS);
        load.insert();
        load.awaitRecorded(0.25);
        killServer();
        RefundLoad.AtKill kill = load.atKill();
        startServer();
        api.awaitSample();
        load.awaitDrained(Duration.ofSeconds(120), "the server restarted, refunds and receipts lease " + CRASH_LEASE);
        load.assertEachHandledOnce("server=" + SERVER, kill);
        // The last test: the next run's server (Liberty's serves every database in turn) starts without the sample.
        deployer.undeploy("sample");
        deployed = false;
    }

    /**
     * Starts the server: Arquillian starts Open Liberty and WildFly; a GlassFish or Payara domain is
     * started with asadmin (their containers start one only when they deploy) and Arquillian, allowed
     * to connect to it, counts it as started (and leaves the stop to {@link #stopServer}).
     */
    private void startServer() throws Exception {
        if (domain != null) {
            domain.start(DOMAIN_SETTINGS);
        }
        servers.start(SERVER);
    }

    /** Stops the server: Arquillian stops Open Liberty and WildFly, asadmin a GlassFish or Payara domain. */
    private void stopServer() throws Exception {
        if (domain != null) {
            domain.stop();
        }
        servers.stop(SERVER);
    }

    /**
     * Kills the server's JVM (Arquillian started Liberty's and WildFly's: they are this test's
     * descendants; a GlassFish or Payara domain runs on its own, named by its pid file); Arquillian
     * forgets the server.
     */
    private void killServer() throws Exception {
        if (domain != null) {
            domain.kill();
        } else {
            ServerJvm.kill(ProcessHandle.current(), System.getProperty("inbox.test.server.home"));
        }
        try {
            servers.stop(SERVER);
        } catch (Exception e) {
            // Liberty's container fails to close its JMX connection to the dead JVM; WildFly's finds no
            // server to shut down. What matters is that Arquillian counts the server as stopped.
        }
        assertThat(servers.isStarted(SERVER)).as("the killed server counts as stopped").isFalse();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        ItDatabase.await(condition, Duration.ofSeconds(60), what);
    }
}
