package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Column;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A queue table whose columns cannot hold what the engine keeps in them is refused at open, naming
 * the column and the type to use. Accepted before: a lease column of DATE ran one job 355 times in
 * 10 s, TIMESTAMPTZ(0) failed every ack, TIMESTAMP on two servers in two zones worked jobs twice.
 */
class ColumnTypesTest {
    private static final String TABLE = "typed_jobs";

    private InboxBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.shutdown(Duration.ofSeconds(2));
        }
    }

    /** A database, the types of its locked_until, retry_after and attempt columns, and what the refusal says. */
    static List<Arguments> refused() {
        return List.of(
                Arguments.of(TestDatabase.POSTGRES, "DATE", "TIMESTAMPTZ", "SMALLINT", "locked_until is date",
                        "use TIMESTAMPTZ"),
                Arguments.of(TestDatabase.POSTGRES, "TIMESTAMPTZ(0)", "TIMESTAMPTZ", "SMALLINT",
                        "locked_until is TIMESTAMPTZ(0), which rounds the lease's deadline", "use TIMESTAMPTZ"),
                Arguments.of(TestDatabase.POSTGRES, "TIMESTAMP", "TIMESTAMPTZ", "SMALLINT",
                        "locked_until is TIMESTAMP WITHOUT TIME ZONE", "use TIMESTAMPTZ"),
                Arguments.of(TestDatabase.POSTGRES, "TIMESTAMPTZ", "INTEGER", "SMALLINT", "retry_after is int4",
                        "use TIMESTAMPTZ"),
                Arguments.of(TestDatabase.MARIADB, "DATE", "DATETIME(6)", "SMALLINT", "locked_until is DATE",
                        "use DATETIME(6)"),
                Arguments.of(TestDatabase.MARIADB, "INT", "DATETIME(6)", "SMALLINT", "locked_until is INT",
                        "use DATETIME(6)"),
                Arguments.of(TestDatabase.CONNECTOR_J, "TIMESTAMP NULL", "DATETIME(6)", "SMALLINT",
                        "locked_until is TIMESTAMP, which ends on 2038-01-19", "use DATETIME(6)"),
                Arguments.of(TestDatabase.MARIADB, "DATETIME(6)", "DATETIME(6)", "VARCHAR(5)", "attempt is VARCHAR",
                        "not a whole number"),
                Arguments.of(TestDatabase.SQLITE, "INTEGER", "TEXT", "INTEGER", "locked_until is INTEGER", "use TEXT"),
                Arguments.of(TestDatabase.SQLITE, "TEXT", "TEXT", "TEXT", "attempt is TEXT", "not a whole number"));
    }

    @ParameterizedTest(name = "{0}: locked_until {1}, retry_after {2}, attempt {3}")
    @MethodSource("refused")
    void aColumnThatCannotHoldWhatTheEngineKeepsIsRefusedAtOpen(TestDatabase db, String lease, String retryAfter,
            String attempt, String problem, String remedy) {
        create(db, lease, retryAfter, attempt);
        assertThatThrownBy(() -> open(db)).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(InboxException.Kind.SCHEMA);
            assertThat(e.getMessage()).contains("table " + TABLE, "column " + problem, remedy);
        });
    }

    /** The types README gives open, and a job is handled through them. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("accepted")
    void theTypesReadmeGivesAreAccepted(TestDatabase db, String lease, String retryAfter, String attempt) {
        create(db, lease, retryAfter, attempt);
        open(db).publisher("typed", Job.class).publish(new Job(1));
        Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(20), () -> "the job handled");
    }

    static List<Arguments> accepted() {
        return List.of(
                Arguments.of(TestDatabase.POSTGRES, "TIMESTAMPTZ", "TIMESTAMPTZ(3)", "INTEGER"),
                Arguments.of(TestDatabase.MARIADB, "DATETIME(6)", "DATETIME", "SMALLINT"),
                Arguments.of(TestDatabase.CONNECTOR_J, "DATETIME", "DATETIME(6)", "INT"),
                Arguments.of(TestDatabase.SQLITE, "TEXT", "DATETIME", "INTEGER"));
    }

    private InboxBroker open(TestDatabase db) {
        InboxSpec spec = InboxSpec.table(TABLE, Column.of("id").generated())
                .attempt(Column.of("attempt").generated())
                .lease(Column.of("locked_until"))
                .retryAfter(Column.of("retry_after"))
                .payload(Column.of("payload"));
        broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("typed", spec, Job.class, (job, d) -> Outcome.ack()));
        return broker.connect();
    }

    private static void create(TestDatabase db, String lease, String retryAfter, String attempt) {
        String id = switch (db) {
            case POSTGRES -> "id BIGSERIAL PRIMARY KEY";
            case MARIADB, CONNECTOR_J, MYSQL -> "id BIGINT AUTO_INCREMENT PRIMARY KEY";
            case SQLITE -> "id INTEGER PRIMARY KEY AUTOINCREMENT";
        };
        String payload = db == TestDatabase.POSTGRES ? "BYTEA" : "BLOB";
        db.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (" + id + ", attempt " + attempt
                + " NOT NULL DEFAULT 1, locked_until " + lease + ", retry_after " + retryAfter + ", payload " + payload
                + " NOT NULL)");
    }
}
