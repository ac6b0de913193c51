package dev.inbox.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.TableShape;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Statements are data: each dialect's SQL printed for review, with the parts the spec requires checked. */
class DialectStatementsTest {
    private static final InboxSpec REPORTS = InboxSpec.table("report_jobs", Column.of("id").generated())
            .attempt(Column.of("attempt").generated())
            .lease(Column.of("locked_until"))
            .payload(Column.of("payload"))
            .priority(Column.of("priority"));

    private static LeaseStatements print(Dialect dialect) {
        TableShape shape = new TableShape(REPORTS, dialect::quote, Map.of("payload", "bytea"));
        LeaseStatements statements = dialect.lease(shape);
        System.out.println("-- " + dialect.name());
        statements.all().forEach((name, sql) -> System.out.println(name + ": " + sql));
        System.out.println("insert: " + dialect.insert(shape));
        return statements;
    }

    @Test
    void postgresLeasesInOneStatementThatSkipsLockedRows() {
        LeaseStatements s = print(new PostgresDialect());
        assertThat(s.style()).isEqualTo(LeaseStatements.ClaimStyle.RETURNING);
        assertThat(s.claim()).contains("FOR UPDATE SKIP LOCKED", "RETURNING", "\"locked_until\" <= :now",
                "\"attempt\" = CASE WHEN \"attempt\" < 2147483647 THEN \"attempt\" + 1 ELSE \"attempt\" END",
                "ORDER BY \"priority\" DESC, \"id\"", "LIMIT :limit");
        assertThat(s.ack()).isEqualTo("DELETE FROM \"report_jobs\" WHERE \"id\" = :id AND \"locked_until\" = :token");
        assertThat(s.extend()).contains("SET \"locked_until\" = :expiry", "\"locked_until\" = :token");
    }

    @Test
    void mysqlSelectsThenStampsEachRow() {
        LeaseStatements s = print(new MySqlDialect());
        assertThat(s.style()).isEqualTo(LeaseStatements.ClaimStyle.SELECT_THEN_STAMP);
        assertThat(s.claim()).startsWith("SELECT `id`, `attempt`, `payload`, NULL, `priority` FROM `report_jobs`")
                .endsWith("LIMIT :limit FOR UPDATE SKIP LOCKED");
        assertThat(s.stamp()).isEqualTo("UPDATE `report_jobs` SET `locked_until` = :expiry, `attempt` = CASE WHEN"
                + " `attempt` < 2147483647 THEN `attempt` + 1 ELSE `attempt` END WHERE `id` = :id");
    }

    /**
     * MySQL's statements of one row as one statement for a list of rows: a JSON array read by
     * JSON_TABLE and joined to the table first, so that each row is found by its primary key.
     */
    @Test
    void mysqlWritesTheStatementsOfOneRowForAListOfRows() {
        MySqlDialect dialect = new MySqlDialect();
        TableShape shape = new TableShape(REPORTS, dialect::quote, Map.of("id", "BIGINT"));
        LeaseStatements s = dialect.lease(shape);
        String rows = "JSON_TABLE(:rows, '$[*]' COLUMNS (inbox_row_id BIGINT PATH '$[0]'";
        String stamp = dialect.forRows(shape, s.stamp());
        System.out.println("lease stamp of a list of rows: " + stamp);
        assertThat(stamp).isEqualTo("UPDATE " + rows + ")) AS inbox_rows STRAIGHT_JOIN `report_jobs` ON"
                + " `report_jobs`.`id` = inbox_rows.inbox_row_id SET `locked_until` = :expiry, `attempt` = CASE WHEN"
                + " `attempt` < 2147483647 THEN `attempt` + 1 ELSE `attempt` END");
        String ack = dialect.forRows(shape, s.ack());
        System.out.println("ack of a list of rows: " + ack);
        assertThat(ack).isEqualTo("DELETE `report_jobs` FROM " + rows + ", inbox_row_token DATETIME(6) PATH '$[1]'))"
                + " AS inbox_rows STRAIGHT_JOIN `report_jobs` ON `report_jobs`.`id` = inbox_rows.inbox_row_id AND"
                + " `report_jobs`.`locked_until` = inbox_rows.inbox_row_token");
        InboxSpec processed = REPORTS.processedAt(Column.of("done_at"));
        TableShape marks = new TableShape(processed, dialect::quote, Map.of("id", "bigint"));
        assertThat(dialect.forRows(marks, dialect.lease(marks).ack())).startsWith("UPDATE " + rows)
                .endsWith(" SET `done_at` = :processed, `locked_until` = NULL");
        // Statements it does not know, and ids it does not read in a list, stay a statement per row.
        assertThat(dialect.forRows(shape, s.claim())).isNull();
        assertThat(dialect.forRows(new TableShape(REPORTS, dialect::quote, Map.of("id", "binary")), s.ack())).isNull();
        assertThat(new PostgresDialect().forRows(shape, s.ack())).isNull();
        // The advisory take reads the rows of the list still due.
        InboxSpec advisory = InboxSpec.table("report_jobs", Column.of("id").generated())
                .advisoryLock(Column.of("advisory_lock")).payload(Column.of("payload"));
        TableShape locks = new TableShape(advisory, dialect::quote, Map.of("id", "bigint"));
        String take = dialect.forRows(locks, dialect.advisory(locks).take());
        System.out.println("advisory take of a list of rows: " + take);
        assertThat(take).startsWith("SELECT `id`, 0, `payload`, NULL FROM " + rows + ")) AS inbox_rows STRAIGHT_JOIN"
                + " `report_jobs` ON `report_jobs`.`id` = inbox_rows.inbox_row_id WHERE ");
    }

    /** PostgreSQL's advisory take and attempt count for a list of rows: the ids as one array. */
    @Test
    void postgresTakesAndCountsAListOfRowsByAnArrayOfIds() {
        PostgresDialect dialect = new PostgresDialect();
        InboxSpec advisory = InboxSpec.table("report_jobs", Column.of("id").generated())
                .attempt(Column.of("attempt").generated()).advisoryLock(Column.of("advisory_lock"))
                .payload(Column.of("payload"));
        TableShape shape = new TableShape(advisory, dialect::quote, Map.of("id", "bigserial"));
        String take = dialect.forRows(shape, dialect.advisory(shape).take());
        System.out.println("advisory take of a list of rows: " + take);
        assertThat(take).contains(" FROM \"report_jobs\" WHERE \"id\" = ANY(CAST(:rows AS bigint[])) AND ");
        assertThat(dialect.forRows(shape, dialect.advisory(shape).count()))
                .endsWith(" WHERE \"id\" = ANY(CAST(:rows AS bigint[]))");
        // The lease form's acks go as ackAll; a statement with a token has no list form here.
        TableShape leased = new TableShape(REPORTS, dialect::quote, Map.of("id", "bigserial"));
        assertThat(dialect.forRows(leased, dialect.lease(leased).ack())).isNull();
        assertThat(dialect.forRows(new TableShape(advisory, dialect::quote, Map.of("id", "numeric")),
                dialect.advisory(shape).take())).isNull();
    }

    @Test
    void mysqlBindsAListOfRowsAsJsonTextOfEachIdAndToken() throws Exception {
        java.sql.PreparedStatement statement = (java.sql.PreparedStatement) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {java.sql.PreparedStatement.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("setString")) {
                        assertThat(args[0]).isEqualTo(3);
                        assertThat(args[1]).isEqualTo("[[\"7\",\"2026-12-02 07:30:00.000000\"],"
                                + "[\"a \\\"quoted\\\" id\",\"2026-12-02 07:30:01.000000\"]]");
                        return null;
                    }
                    throw new AssertionError("unexpected " + method);
                });
        new MySqlDialect().bindRows(statement, 3, new Object[] {7L, "a \"quoted\" id"},
                new Instant[] {Instant.parse("2026-12-02T07:30:00Z"), Instant.parse("2026-12-02T07:30:01Z")});
    }

    @Test
    void theAttemptCountStopsAtTheLargestValueItsColumnHolds() {
        MySqlDialect dialect = new MySqlDialect();
        LeaseStatements s = dialect.lease(new TableShape(REPORTS, dialect::quote, Map.of("attempt", "SMALLINT")));
        assertThat(s.stamp()).contains("`attempt` = CASE WHEN `attempt` < 32767 THEN `attempt` + 1 ELSE `attempt` END");
    }

    @Test
    void sqliteLeasesWithUpdateReturning() {
        LeaseStatements s = print(new SqliteDialect());
        assertThat(s.claim()).startsWith("UPDATE \"report_jobs\" SET").contains("RETURNING \"id\", \"attempt\" - 1");
        assertThat(s.claim()).doesNotContain("FOR UPDATE");
    }

    @Test
    void wholeSecondDatabasesRoundDeadlinesUpAndTimesDown() {
        MySqlDialect mysql = new MySqlDialect();
        Instant now = Instant.parse("2026-11-29T12:00:00.700Z");
        assertThat(mysql.stored(now)).isEqualTo(Instant.parse("2026-11-29T12:00:00Z"));
        assertThat(mysql.deadline(now, Duration.ofSeconds(1))).isEqualTo(Instant.parse("2026-11-29T12:00:02Z"));
        assertThat(mysql.deadline(Instant.parse("2026-11-29T12:00:00Z"), Duration.ofSeconds(1)))
                .isEqualTo(Instant.parse("2026-11-29T12:00:01Z"));
    }

    @Test
    void sqliteTimesAreFixedWidthTextThatSorts() {
        assertThat(SqliteDialect.format(Instant.parse("2026-11-29T12:00:00Z"))).isEqualTo("2026-11-29T12:00:00.000000Z");
        assertThat(SqliteDialect.format(Instant.parse("2026-11-29T12:00:00.5Z")))
                .isGreaterThan(SqliteDialect.format(Instant.parse("2026-11-29T12:00:00.000001Z")));
    }

    @Test
    void namesAreQuotedPerDatabaseAndCheckedForLength() {
        assertThat(new PostgresDialect().quote("app.jobs")).isEqualTo("\"app\".\"jobs\"");
        assertThat(new MySqlDialect().quote("jobs")).isEqualTo("`jobs`");
        assertThatThrownBy(() -> new MySqlDialect().quote("j".repeat(65))).hasMessageContaining("at most 64");
    }
}
