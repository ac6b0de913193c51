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

    private static List<String> with(String node) {
        return Stream.concat(CONFIG.stream(), Stream.of(node)).toList();
    }

    private static long recordedBy(ItDatabase database, String node) {
        return database.count("refunds WHERE node = '" + node + "'");
    }
}
