package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Delivery;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A process killed with {@code kill -9} while thousands of jobs are in flight, then a new one
 * started: in every form on every database, every job is handled and none is lost; with the
 * transactional refunds handler each refund has exactly one record and one receipt.
 */
class LoadCrashTest {
    private static final int JOBS = 2_000;
    private static final int REFUNDS = 400;

    /** The refunds handler of SPEC §8: record and receipt in the delivery's transaction. */
    static Outcome refund(InboxBroker broker, Job job, Delivery delivery) throws SQLException {
        try (PreparedStatement ps = delivery.connection()
                .prepareStatement("INSERT INTO crash_refunds (order_id) VALUES (?)")) {
            ps.setInt(1, job.n());
            ps.executeUpdate();
        }
        broker.publisher("crash_receipts", Job.class).publish(new Job(job.n()));
        return Outcome.ack();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void everyJobIsHandledAfterACrashUnderLoad(FormCase c) throws Exception {
        Set<Integer> handled = run(c, "jobs", JOBS, (broker, table) -> Subscription.of("crash_load", table.spec(),
                Job.class, (job, d) -> Outcome.ack()).workers(4));
        assertThat(handled).hasSize(JOBS);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void eachRefundHasOneRecordAndOneReceiptAfterACrash(FormCase c) throws Exception {
        TestDatabase db = c.db();
        db.execute("DROP TABLE IF EXISTS crash_refunds", "CREATE TABLE crash_refunds (order_id INTEGER PRIMARY KEY)");
        TestTable.of("crash_receipt_jobs", dev.inbox.ClaimForm.LEASE).create(db);
        run(c, "refunds", REFUNDS, (broker, table) -> {
            broker.route("crash_receipts", LoadCrashChild.RECEIPTS);
            return Subscription.of("crash_load", table.spec(), Job.class, (job, d) -> refund(broker, job, d))
                    .workers(4).transactional(true);
        });
        assertThat(db.count("crash_refunds")).isEqualTo(REFUNDS);
        assertThat(db.count("crash_receipt_jobs")).as("one receipt per refund").isEqualTo(REFUNDS);
    }

    /** The second process's subscription, built on its broker. */
    @FunctionalInterface
    interface Second {
        Subscription<Job> subscription(InboxBroker broker, TestTable table);
    }

    private static Set<Integer> run(FormCase c, String mode, int jobs, Second second) throws Exception {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("crash_load_jobs", c.form(), TestTable.Feature.ATTEMPT);
        table.create(db);
        try (Connection conn = db.dataSource().getConnection();
                PreparedStatement ps = conn.prepareStatement("INSERT INTO crash_load_jobs (payload) VALUES (?)")) {
            conn.setAutoCommit(false);
            for (int i = 0; i < jobs; i++) {
                ps.setBytes(1, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
                ps.addBatch();
            }
            ps.executeBatch();
            conn.commit();
            conn.setAutoCommit(true);
        }
        Path marker = Files.createTempFile("inbox-load-crash", ".txt");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), LoadCrashChild.class.getName(), db.url(), c.form().name(),
                marker.toString(), mode)
                .redirectErrorStream(true).redirectOutput(new File(marker + ".log")).start();
        try {
            Eventually.await(() -> lines(marker) >= jobs / 4, Duration.ofSeconds(60),
                    () -> "the child handled a quarter of the jobs");
            assertThat(new ProcessBuilder("kill", "-9", String.valueOf(child.pid())).start().waitFor()).isZero();
            child.waitFor();
        } finally {
            child.destroyForcibly();
        }
        Set<Integer> handled = new HashSet<>();
        Files.readAllLines(marker).forEach(line -> handled.add(Integer.parseInt(line.trim())));
        int byChild = handled.size();
        Map<Integer, AtomicInteger> again = new ConcurrentHashMap<>();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50));
        Subscription<Job> subscription = second.subscription(broker, table);
        broker.subscribe(Subscription.of("crash_load", table.spec(), Job.class, (job, d) -> {
            again.computeIfAbsent(job.n(), n -> new AtomicInteger()).incrementAndGet();
            return subscription.handler().handle(job, d);
        }).workers(4).transactional(subscription.get(dev.inbox.SubscriptionOption.TRANSACTIONAL))).connect();
        try {
            Eventually.await(() -> db.count("crash_load_jobs") == 0, Duration.ofSeconds(60),
                    () -> db.count("crash_load_jobs") + " rows left");
        } finally {
            broker.shutdown();
        }
        handled.addAll(again.keySet());
        System.out.printf("CRASH db=%s form=%s mode=%s jobs=%d by_child=%d by_second=%d lost=%d%n",
                db.name().toLowerCase(), c.form().name().toLowerCase(), mode, jobs, byChild, again.size(),
                jobs - handled.size());
        return handled;
    }

    private static int lines(Path file) {
        try {
            return (int) Files.lines(file).count();
        } catch (java.io.IOException e) {
            return 0;
        }
    }

}
