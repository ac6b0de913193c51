package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sample on a real Open Liberty, with the resource adapter, the CDI handlers and JTA
 * deliveries, on SQLite, PostgreSQL and MariaDB.
 */
class SampleOnLibertyIT {
    private static final List<String> TABLES = List.of("thumbnail_jobs", "report_jobs", "refund_jobs", "receipt_jobs",
            "refund_dead", "refunds", "receipts_mailed", "thumbnails_rendered", "reports_rendered", "ledger_jobs", "ledger");

    /** The refunds of the kill test: orders apart from those of the other cases. */
    private static final int ORDERS = 400;
    private static final long FIRST_ORDER = 100_000;
    private static final String CRASH_LEASE = "PT5S";
    /** The application's drain timeout here: a stop with reports in work must end within it and 5 s. */
    private static final Duration DRAIN = Duration.ofSeconds(15);
    private static final Pattern ORDER = Pattern.compile("\"order\"\\s*:\\s*(\\d+)");

    private final LibertyServer server = new LibertyServer();
    private String db;
    private ItDatabase database;

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgres", "mariadb"})
    void theSampleRunsOnEachDatabase(String database) throws Exception {
        db = database;
        dropTables();
        // MicroProfile Config: a two-second lease for reports instead of the annotation's minute, and
        // five seconds instead of the default 30 for refunds and receipts, so that the rows a kill
        // leaves mid-lease come back within seconds.
        server.configure(db, List.of("inbox.queue.reports.lease=PT2S", "sample.reports.render-time=PT5S",
                "inbox.drain-timeout=" + DRAIN,
                "inbox.queue.refunds.lease=" + CRASH_LEASE, "inbox.queue.receipts.lease=" + CRASH_LEASE,
                // Keys a careless operator might write: each is named in one warning with the key meant.
                "inbox.queue.refunds.wrokers=8", "inbox.queue.refundz.workers=8", "inbox.bogus-option=1"));
        server.start();
        unknownKeysAreNamedWithTheKeyMeant();

        refundsAcceptanceCase();
        theLedgerBeanBooksOnceAndARollbackComesAgain();
        badRequestsGetAClearAnswer();
        thumbnails();
        aConfigOverrideSetsTheLeaseAndTheKeeperKeepsALongReportAlive();
        aStopDuringWorkLosesNoJob();
        assertThat(server.messages()).doesNotContain("LEASE_LOST");
        aKillDuringALoadOfRefundsLosesNoneAndDoublesNone();
        assertThat(server.messages()).doesNotContain("LEASE_LOST");
        if (!db.equals("sqlite")) {
            aDatabaseOutOfReachAnswers503WithRetryAfter();
        }
    }

    @org.junit.jupiter.api.Test
    void anAdapterBoundNowhereFailsTheDeploymentNamingWhatToDeclare() throws Exception {
        db = "sqlite";
        server.configure(db, List.of("inbox.adapter=inbox/nowhere"));
        String messages = server.startRefused();
        assertThat(messages).contains("no Inbox adapter at JNDI name inbox/nowhere",
                "<adminObject jndiName=\"inbox/nowhere\"><properties.APP.RAR/></adminObject>");
        assertThat(messages.lines().filter(line -> line.contains("at dev.inbox."))).as("stack trace lines of Inbox")
                .isEmpty();
    }

    @org.junit.jupiter.api.Test
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

    /** Input a careless client sends: 400 naming the field and the rule, escaped echoes, a limited body. */
    private void badRequestsGetAClearAnswer() throws Exception {
        var empty = server.post("/thumbnails", "{}");
        assertThat(empty.statusCode()).isEqualTo(400);
        assertThat(empty.body()).contains("\"field\":\"path\"", "\"rule\":\"must not be blank\"");
        assertThat(server.post("/thumbnails", "{\"path\": null}").body()).contains("\"field\":\"path\"");
        var huge = server.post("/refunds", "{\"order\": 99999999999999999999999, \"amountCents\": 5}");
        assertThat(huge.statusCode()).isEqualTo(400);
        assertThat(huge.body()).contains("\"field\":\"order\"", "less than or equal to 999999999999");
        var negative = server.post("/refunds", "{\"order\": 47, \"amountCents\": -5}");
        assertThat(negative.statusCode()).isEqualTo(400);
        assertThat(negative.body()).contains("\"field\":\"amountCents\"", "must be greater than 0");
        var quoted = server.post("/thumbnails", "{\"path\": \"a\\\"b</script>.txt\"}");
        assertThat(quoted.statusCode()).isEqualTo(422);
        assertThat(quoted.body()).startsWith("{").endsWith("}").contains("\"path\":\"a\\\"b</script>.txt\"");
        assertThat(server.post("/thumbnails", "{\"path\": \"" + "x".repeat(2_000) + ".png\"}").statusCode())
                .isEqualTo(400);
        assertThat(server.postLarge("/thumbnails", 2 << 20).statusCode()).as("a 2 MiB body").isEqualTo(413);
        assertThat(database.count("refund_jobs")).isZero();
    }

    /** The database stopped under the sample: a publish answers 503 with Retry-After, and works once it is back. */
    private void aDatabaseOutOfReachAnswers503WithRetryAfter() throws Exception {
        stopDatabase();
        try {
            var refused = server.post("/refunds", "{\"order\": 48, \"amountCents\": 100}");
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).contains("5");
            assertThat(refused.body()).contains("the database is out of reach").doesNotContain("Exception")
                    .doesNotContain("SQL");
        } finally {
            startDatabase();
        }
        await(() -> {
            try {
                return server.post("/refunds", "{\"order\": 48, \"amountCents\": 100}").statusCode() == 202;
            } catch (IOException | InterruptedException e) {
                return false;
            }
        }, "a publish accepted again once the database is back");
        await(() -> server.body("/refunds").contains("{\"order\":48,"), "the refund handled");
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
        await(() -> server.body("/receipts").equals(mailed), "every receipt mailed");
        await(() -> server.body("/queues").contains("\"refunds\":{\"ready\":0,\"inWork\":0,\"dead\":0}"),
                "the refunds queue drained");
        assertThat(server.body("/refunds")).isEqualTo(recorded);
        // Each refund's booking job committed with it; the message-driven bean books it once.
        String booked = "[{\"order\":42,\"amountCents\":-1999},{\"order\":43,\"amountCents\":-500},"
                + "{\"order\":44,\"amountCents\":-700}]";
        await(() -> server.body("/ledger").equals(booked), "every refund booked in the ledger");

        // The same refund again changes nothing: its record's key refuses it, the job is dead-lettered.
        assertThat(server.post("/refunds", "{\"order\": 42, \"amountCents\": 1999}").statusCode()).isEqualTo(202);
        await(() -> server.body("/queues").contains("\"refunds\":{\"ready\":0,\"inWork\":0,\"dead\":1}"),
                "the duplicate refund dead-lettered");
        assertThat(server.body("/refunds")).isEqualTo(recorded);
        assertThat(server.body("/receipts")).isEqualTo(mailed);
        assertThat(server.body("/ledger")).isEqualTo(booked);
        assertThat(server.post("/refunds", "{\"order\": 46, \"amountCents\"").statusCode()).isEqualTo(400);
    }

    /**
     * The message-driven bean on the ledger queue (a queue no handler method takes, published to by
     * the application's {@code @Queue(table = ...)} publisher): its write commits with the ack in the
     * container's transaction; a retry and an exception roll the write back and the job comes again.
     */
    private void theLedgerBeanBooksOnceAndARollbackComesAgain() throws Exception {
        String before = server.body("/ledger");
        assertThat(server.post("/ledger", "{\"order\": 900, \"amountCents\": 250}").statusCode()).isEqualTo(202);
        assertThat(server.post("/ledger", "{\"order\": 901, \"amountCents\": -300, \"failFirst\": true}")
                .statusCode()).isEqualTo(202);
        assertThat(server.post("/ledger", "{\"order\": 902, \"amountCents\": 125, \"crashFirst\": true}")
                .statusCode()).isEqualTo(202);
        String after = before.substring(0, before.length() - 1) + ",{\"order\":900,\"amountCents\":250},"
                + "{\"order\":901,\"amountCents\":-300},{\"order\":902,\"amountCents\":125}]";
        await(() -> database.count("ledger_jobs") == 0, "the ledger queue drained");
        assertThat(server.body("/ledger")).as("one booking per job: the first attempts of 901 and 902 rolled back")
                .isEqualTo(after);
        assertThat(server.body("/queues")).contains("\"ledger\":{\"ready\":0,\"inWork\":0,\"dead\":0}");
        assertThat(server.post("/ledger", "{\"order\": -1, \"amountCents\": 5}").statusCode()).isEqualTo(400);
    }

    private void thumbnails() throws Exception {
        // Refused after its publish: the request's transaction rolls back, and the job with it.
        assertThat(server.post("/thumbnails", "{\"path\": \"notes.txt\"}").statusCode()).isEqualTo(422);
        assertThat(server.post("/thumbnails", "{\"path\": \"cat.png\"}").statusCode()).isEqualTo(202);
        await(() -> server.body("/thumbnails").equals("[\"cat.png\"]"), "the thumbnail rendered");
        // The ack writer writes the ack a moment after the handler returns: the row goes then, and
        // no job of the rolled-back request is left behind.
        await(() -> database.count("thumbnail_jobs") == 0, "the thumbnail's job acked, and no other left");
        assertThat(server.body("/thumbnails")).isEqualTo("[\"cat.png\"]");
    }

    private void aConfigOverrideSetsTheLeaseAndTheKeeperKeepsALongReportAlive() throws Exception {
        server.post("/reports", "{\"name\": \"q1\"}");
        await(() -> database.lockedUntil("report_jobs") != null, "the report claimed");
        Duration lease = Duration.between(Instant.now(), database.lockedUntil("report_jobs"));
        assertThat(lease).as("the lease the claim wrote").isLessThan(Duration.ofSeconds(4));
        await(() -> server.body("/reports").equals("[\"q1\"]"), "the report rendered after outliving its lease");
        Thread.sleep(3000);
        assertThat(server.body("/reports")).as("rendered once: the keeper held the row").isEqualTo("[\"q1\"]");
    }

    private void aStopDuringWorkLosesNoJob() throws Exception {
        server.post("/reports", "{\"name\": \"q2\"}");
        server.post("/reports", "{\"name\": \"q3\"}");
        await(() -> database.lockedUntil("report_jobs") != null, "a report in work");
        long t = System.nanoTime();
        server.stop();
        Duration stop = Duration.ofNanos(System.nanoTime() - t);
        System.out.printf(Locale.ROOT, "SampleOnLibertyIT: %s: stopped with reports in work in %.1f s%n", db,
                stop.toMillis() / 1000.0);
        // The adapter's tasks are short Work: the server's quiesce waits only for the reports in work.
        assertThat(stop).as("the stop with reports in work").isLessThan(DRAIN.plusSeconds(5));
        server.start();
        await(() -> server.body("/reports").contains("q2") && server.body("/reports").contains("q3"), "every report rendered");
        assertThat(database.count("report_jobs")).isZero();
    }

    /**
     * Reliability: the server killed with {@code kill -9} while a backlog of refunds is in work, then
     * started again. The load goes straight into {@code refund_jobs} in one insert transaction (the
     * rows the publisher writes), so every order is known to be queued before the kill and the kill
     * cuts only the handling: claims, transactions in progress, receipts in work.
     */
    private void aKillDuringALoadOfRefundsLosesNoneAndDoublesNone() throws Exception {
        long deadBefore = database.count("refund_dead");
        try (Connection c = database.connect(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO refund_jobs (payload) VALUES (?)")) {
            c.setAutoCommit(false);
            for (long order = FIRST_ORDER; order < FIRST_ORDER + ORDERS; order++) {
                insert.setBytes(1, ("{\"order\":" + order + ",\"amountCents\":" + amount(order)
                        + ",\"failFirst\":false,\"crashFirst\":false}").getBytes(StandardCharsets.UTF_8));
                insert.addBatch();
            }
            insert.executeBatch();
            c.commit();
        }
        long loaded = System.nanoTime();
        long deadline = loaded + Duration.ofSeconds(120).toNanos();
        while (database.count("refunds WHERE order_id >= " + FIRST_ORDER) < ORDERS / 4) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("after 120 s: not a quarter of the " + ORDERS + " refunds recorded, "
                        + database.count("refund_jobs") + " refund jobs left");
            }
            Thread.sleep(10);
        }
        server.kill();
        long killed = System.nanoTime();
        // The restart rolls messages.log, and the next database's start rolls it out: keep the dead server's.
        Path logs = server.outputDir().resolve("logs");
        Files.copy(logs.resolve("messages.log"), logs.resolve("killed-" + db + "-messages.log"),
                StandardCopyOption.REPLACE_EXISTING);

        // What the dead server left: every order recorded or still queued, never both, never neither.
        long recordedAtKill = database.count("refunds WHERE order_id >= " + FIRST_ORDER);
        long refundJobsAtKill = database.count("refund_jobs");
        long refundsLeased = database.count("refund_jobs WHERE locked_until IS NOT NULL");
        Set<Long> receiptsInWork = receiptOrdersLeased();
        long receiptJobsAtKill = database.count("receipt_jobs");
        long ledgerJobsAtKill = database.count("ledger_jobs");
        long ledgerLeased = database.count("ledger_jobs WHERE locked_until IS NOT NULL");
        assertThat(refundJobsAtKill).as("refund jobs left at the kill: work in flight").isPositive();
        assertThat(recordedAtKill + refundJobsAtKill).as("orders recorded plus orders queued at the kill")
                .isEqualTo(ORDERS);

        server.startAgain();
        long restarted = System.nanoTime();
        deadline = restarted + Duration.ofSeconds(90).toNanos();
        while (database.count("refund_jobs") + database.count("receipt_jobs") + database.count("ledger_jobs") > 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("90 s after the restart (refunds and receipts lease " + CRASH_LEASE
                        + "): " + database.count("refund_jobs") + " refund jobs (" + database.count("refund_jobs WHERE locked_until IS NOT NULL")
                        + " leased), " + database.count("receipt_jobs") + " receipt jobs and "
                        + database.count("ledger_jobs") + " ledger jobs left; see "
                        + server.outputDir().resolve("logs"));
            }
            Thread.sleep(100);
        }
        long recovered = System.nanoTime();

        Map<Long, Long> refunds = orders("SELECT order_id, amount_cents FROM refunds WHERE order_id >= " + FIRST_ORDER);
        Map<Long, Long> receipts = orders("SELECT order_id, COUNT(*) FROM receipts_mailed WHERE order_id >= "
                + FIRST_ORDER + " GROUP BY order_id");
        Map<Long, Long> mailedTwice = new TreeMap<>();
        receipts.forEach((order, n) -> {
            if (n > 1) {
                mailedTwice.put(order, n);
            }
        });
        // A refund handled twice would find its order recorded: the handler drops it to refund_dead.
        long duplicates = database.count("refund_dead") - deadBefore;
        Map<Long, Long> bookings = orders("SELECT order_id, COUNT(*) FROM ledger WHERE order_id >= " + FIRST_ORDER
                + " GROUP BY order_id");
        Map<Long, Long> bookedCents = orders("SELECT order_id, SUM(amount_cents) FROM ledger WHERE order_id >= "
                + FIRST_ORDER + " GROUP BY order_id");
        long bookedTwice = bookings.values().stream().filter(n -> n > 1).count();
        System.out.printf("LIBERTY-KILL db=%s orders=%d handled=%d lost=%d duplicates=%d receipts=%d receipts_lost=%d"
                + " receipts_mailed_twice=%d ledger_booked=%d ledger_booked_twice=%d | at the kill: recorded=%d"
                + " queued=%d refunds_in_work=%d receipt_jobs=%d receipts_in_work=%d ledger_jobs=%d ledger_in_work=%d"
                + " | kill_after_s=%.1f restart_s=%.1f drained_after_restart_s=%.1f kill_to_drained_s=%.1f%n",
                db, ORDERS, refunds.size(), ORDERS - refunds.size(), duplicates, receipts.size(),
                ORDERS - receipts.size(), mailedTwice.size(), bookings.size(), bookedTwice, recordedAtKill,
                refundJobsAtKill, refundsLeased, receiptJobsAtKill, receiptsInWork.size(), ledgerJobsAtKill, ledgerLeased, seconds(killed - loaded), seconds(restarted - killed),
                seconds(recovered - restarted), seconds(recovered - killed));

        assertThat(refunds).as("one record per order, with its amount").hasSize(ORDERS)
                .allSatisfy((order, cents) -> assertThat(cents).isEqualTo(amount(order)));
        assertThat(receipts.keySet()).as("a receipt mailed for every order").isEqualTo(refunds.keySet());
        // The mailer is not transactional: a receipt it mailed just before the kill, whose job it could
        // not ack, is mailed again once the lease runs out. Only those; any other second receipt would
        // be a second receipt job, which the refunds' transactions must never leave.
        assertThat(mailedTwice.keySet()).as("orders mailed twice: only receipts in work at the kill")
                .isSubsetOf(receiptsInWork);
        assertThat(mailedTwice.values()).as("at most one more mail for a receipt in work at the kill")
                .allSatisfy(n -> assertThat(n).isEqualTo(2L));
        assertThat(duplicates).as("refunds dead-lettered (a second delivery of a recorded order)").isZero();
        // The ledger bean is transacted: a booking in work at the kill rolled back with its ack.
        assertThat(bookings).as("ledger bookings per order, by the message-driven bean").hasSize(ORDERS)
                .allSatisfy((order, n) -> assertThat(n).as("bookings of order " + order).isEqualTo(1L));
        assertThat(bookedCents).allSatisfy((order, cents) -> assertThat(cents).isEqualTo(-amount(order)));
    }

    private static long amount(long order) {
        return order % 997 + 1;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    /** The orders of the receipt jobs leased at the moment (their JSON payload is {"order":n}). */
    private Set<Long> receiptOrdersLeased() throws SQLException {
        Set<Long> orders = new TreeSet<>();
        try (Connection c = database.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT payload FROM receipt_jobs WHERE locked_until IS NOT NULL")) {
            while (rs.next()) {
                Matcher m = ORDER.matcher(new String(rs.getBytes(1), StandardCharsets.UTF_8));
                if (!m.find()) {
                    throw new IllegalStateException("a receipt job without an order");
                }
                orders.add(Long.parseLong(m.group(1)));
            }
        }
        return orders;
    }

    /** The first column of each row of {@code sql} to its second. */
    private Map<Long, Long> orders(String sql) throws SQLException {
        Map<Long, Long> out = new TreeMap<>();
        try (Connection c = database.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return out;
    }

    // ---- the database behind the server ----






    private void dropTables() throws Exception {
        database = new ItDatabase(db, server.outputDir());
        database.drop(TABLES);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        ItDatabase.await(condition, Duration.ofSeconds(60), what);
    }


}
