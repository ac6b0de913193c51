package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * On MySQL and MariaDB a claim's stamps, a batch's acks and a claim's attempts counted are one
 * statement for their rows: as a JDBC batch of a statement per row they took a round trip each
 * (neither MariaDB Connector/J nor MySQL Connector/J pipelines or rewrites a batch as it comes),
 * and most of a drain's CPU.
 */
class RowListsTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("mysqlCases")
    void aClaimsStampsAndABatchsAcksAreOneStatementForTheirRows(FormCase c) throws Exception {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("list_jobs", c.form(), TestTable.Feature.ATTEMPT);
        table.create(db);
        int jobs = 320;
        // Room for whole claims of 16 (by default a claim takes what two workers and two rows ahead leave).
        Subscription<Job> subscription = Subscription.of("lists", table.spec(), Job.class, (job, d) -> Outcome.ack())
                .workers(2).batchSize(16).prefetch(32);
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(subscription).connect();
        Map<String, Long> before;
        Map<String, Long> after;
        try {
            broker.publisher("lists", Job.class).publishAll(IntStream.range(0, jobs).mapToObj(Job::new).toList());
            before = statementsRun(db);
            broker.wake("lists");
            Eventually.await(() -> db.count(table.name()) == 0, Duration.ofSeconds(60),
                    () -> db.count(table.name()) + " left");
            after = statementsRun(db);
        } finally {
            broker.shutdown();
        }
        long ofOneRow = after.get("Com_update") - before.get("Com_update") + after.get("Com_delete")
                - before.get("Com_delete");
        long ofLists = after.get("Com_update_multi") - before.get("Com_update_multi")
                + after.get("Com_delete_multi") - before.get("Com_delete_multi");
        // A statement per row ran two per job (its stamp or attempt count, and its ack).
        assertThat(ofOneRow).as("statements of one row for %s jobs", jobs).isLessThan(jobs / 4);
        assertThat(ofLists).as("statements of a list of rows").isPositive();
    }

    /** What the server counted of each kind of statement, from all sessions (the tests run one at a time). */
    private static Map<String, Long> statementsRun(TestDatabase db) throws Exception {
        Map<String, Long> counts = new HashMap<>();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_update', 'Com_delete',"
                        + " 'Com_update_multi', 'Com_delete_multi')")) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        }
        return counts;
    }

    static Stream<FormCase> mysqlCases() {
        return FormCase.all().filter(c -> c.db() == TestDatabase.MARIADB || c.db() == TestDatabase.CONNECTOR_J
                || c.db() == TestDatabase.MYSQL);
    }
}
