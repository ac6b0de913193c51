package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Scaling out: an Open Liberty and a WildFly, each with the sample, drain the same queues of one
 * PostgreSQL or MariaDB database at the same time. Every refund is handled once (recorded with its
 * receipt and booking jobs in one transaction, mailed, booked once), and one server killed with
 * {@code kill -9} mid-load changes nothing: the other takes over the rows the dead one held once
 * their leases run out. Each refund's record names the server that recorded it ({@code sample.node}).
 */
class TwoServersOnOneDatabaseIT {
    private static final int ORDERS = 1000;
    private static final long FIRST_ORDER = 200_000;
    /** Refunds each server records before the kill: both are at work on the one queue. */
    private static final int EACH_BEFORE_THE_KILL = 50;
    /** The lease of refunds and receipts, so that the rows the dead server held come back within seconds. */
    private static final List<String> CONFIG = List.of("inbox.queue.refunds.lease=PT5S",
            "inbox.queue.receipts.lease=PT5S");

    private final LibertyServer liberty = new LibertyServer();
    private final WildFlyServer wildfly = new WildFlyServer();

    @AfterEach
    void stopBoth() throws Exception {
        try {
            liberty.stop();
        } finally {
            wildfly.stop();
        }
    }

    @ParameterizedTest(name = "{0}, {1} killed")
    @CsvSource({"postgres, wildfly", "mariadb, liberty"})
    void bothServersDrainOneDatabaseAndAKillOfEitherChangesNothing(String db, String victim) throws Exception {
        ItDatabase database = new ItDatabase(db, liberty.outputDir());
        database.drop(ItDatabase.SAMPLE_TABLES);
        liberty.configure(db, with("sample.node=liberty"));
        liberty.start();
        wildfly.start(db, with("sample.node=wildfly"));

        RefundLoad load = new RefundLoad(database, FIRST_ORDER, ORDERS);
        load.insert();
        ItDatabase.await(() -> recordedBy(database, "liberty") >= EACH_BEFORE_THE_KILL
                && recordedBy(database, "wildfly") >= EACH_BEFORE_THE_KILL, Duration.ofSeconds(120),
                "both servers recording refunds from the one queue");
        if (victim.equals("wildfly")) {
            wildfly.kill();
        } else {
            liberty.kill();
        }
        RefundLoad.AtKill kill = load.atKill();
        String survivor = victim.equals("wildfly") ? "liberty" : "wildfly";
        long victimAtKill = recordedBy(database, victim);
        long survivorAtKill = recordedBy(database, survivor);

        load.awaitDrained(Duration.ofSeconds(120), "the " + survivor + " server alone, refunds and receipts lease PT5S");
        long victimAfter = recordedBy(database, victim);
        long survivorAfter = recordedBy(database, survivor);
        System.out.printf("TWO-SERVERS db=%s killed=%s recorded_by_%s=%d recorded_by_%s=%d (just after the kill: %d and %d)%n",
                db, victim, victim, victimAfter, survivor, survivorAfter, victimAtKill, survivorAtKill);
        load.assertEachHandledOnce("two-servers " + victim + "-killed", kill);
        assertThat(victimAfter).as("refunds the dead server recorded after its death").isEqualTo(victimAtKill);
        assertThat(survivorAfter).as("the survivor took over the rest of the queue")
                .isEqualTo(ORDERS - victimAtKill);
    }

    /**
     * The sample's nightly report, declared on both servers and moved to every two seconds by
     * MicroProfile Config: each occurrence is published by one of them, once, and rendered once (an
     * occurrence published as the servers stop may wait in its queue, and is not counted).
     */
    @org.junit.jupiter.api.Test
    void bothServersPublishEachOccurrenceOfARecurringJobOnce() throws Exception {
        String db = "postgres";
        ItDatabase database = new ItDatabase(db, liberty.outputDir());
        database.drop(ItDatabase.SAMPLE_TABLES);
        List<String> config = List.of("inbox.recurring.nightly-report.cron=*/2 * * * * *",
                "sample.reports.render-time=PT0.1S");
        liberty.configure(db, Stream.concat(config.stream(), Stream.of("sample.node=liberty")).toList());
        liberty.start();
        wildfly.start(db, Stream.concat(config.stream(), Stream.of("sample.node=wildfly")).toList());
        Thread.sleep(20_000); // both servers evaluate the schedule
        wildfly.stop();
        liberty.stop();

        List<java.time.Instant> dues = database.column("SELECT name FROM reports_rendered WHERE name LIKE 'nightly %'"
                + " ORDER BY name").stream().map(name -> java.time.Instant.parse(name.substring("nightly ".length())))
                .toList();
        System.out.printf("TWO-SERVERS recurring occurrences=%d first=%s last=%s%n", dues.size(),
                dues.isEmpty() ? "-" : dues.get(0), dues.isEmpty() ? "-" : dues.get(dues.size() - 1));
        assertThat(dues).as("at least the 20 s both servers ran, every two seconds").hasSizeGreaterThanOrEqualTo(10)
                .doesNotHaveDuplicates();
        for (int i = 1; i < dues.size(); i++) {
            assertThat(dues.get(i)).as("each occurrence once, none skipped").isEqualTo(dues.get(i - 1).plusSeconds(2));
        }
    }

    private static List<String> with(String node) {
        return Stream.concat(CONFIG.stream(), Stream.of(node)).toList();
    }

    private static long recordedBy(ItDatabase database, String node) {
        return database.count("refunds WHERE node = '" + node + "'");
    }
}
