package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A dead-letter table whose columns cannot hold what a move writes is refused when the subscription
 * opens. Before, MariaDB cut a 100,030-byte payload moved from a {@code LONGBLOB} queue into a
 * {@code BLOB} dead-letter table to 34,494 bytes without a warning, and an error column shorter than
 * the error text failed every move of the row.
 */
class DeadLetterColumnsTest {
    private static final String QUEUE = "dlcols_jobs";
    private static final String DEAD = "dlcols_dead";

    private InboxBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.shutdown(Duration.ofSeconds(2));
        }
    }

    private InboxBroker open(TestDatabase db) {
        return open(db, Outcome.ack());
    }

    private InboxBroker open(TestDatabase db, Outcome outcome) {
        broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50)).subscribe(Subscription.of("dlcols",
                Job.leaseTable(QUEUE), Job.class, (job, d) -> outcome).maxAttempts(3).deadLetter(DEAD));
        return broker.connect();
    }

    private static void createDeadLetter(TestDatabase db, String payload, String error) {
        String time = switch (db) {
            case POSTGRES -> "TIMESTAMPTZ";
            case MARIADB, CONNECTOR_J, MYSQL -> "DATETIME(6)";
            case SQLITE -> "TEXT";
        };
        db.execute("DROP TABLE IF EXISTS " + DEAD, "CREATE TABLE " + DEAD + " (id BIGINT PRIMARY KEY, payload " + payload
                + " NOT NULL, attempt INTEGER NOT NULL, error " + error + " NOT NULL, failed_at " + time + " NOT NULL)");
    }

    private static String bytes(TestDatabase db) {
        return db == TestDatabase.POSTGRES ? "BYTEA" : "BLOB";
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "CONNECTOR_J"})
    void aBlobDeadLetterPayloadUnderALongblobQueueIsRefusedNamingBoth(TestDatabase db) {
        db.createLeaseTable(QUEUE);
        db.execute("ALTER TABLE " + QUEUE + " MODIFY payload LONGBLOB NOT NULL");
        createDeadLetter(db, "BLOB", "TEXT");
        assertThatThrownBy(() -> open(db)).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(InboxException.Kind.SCHEMA);
            assertThat(e.getMessage()).contains(DEAD, QUEUE, "column payload is BLOB (65535)", "narrower than the queue's",
                    "LONGBLOB", "give it the queue column's type");
        });
        broker.shutdown(Duration.ofSeconds(2));

        db.execute("ALTER TABLE " + DEAD + " MODIFY payload LONGBLOB NOT NULL");
        open(db);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "CONNECTOR_J"})
    void anErrorColumnShorterThanTheErrorTextIsRefused(TestDatabase db) {
        db.createLeaseTable(QUEUE);
        createDeadLetter(db, bytes(db), "VARCHAR(255)");
        assertThatThrownBy(() -> open(db)).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(InboxException.Kind.SCHEMA);
            assertThat(e.getMessage()).contains(DEAD, "column error is", "(255)", "2000 characters",
                    "make it a TEXT column");
        });
        broker.shutdown(Duration.ofSeconds(2));

        createDeadLetter(db, bytes(db), db == TestDatabase.POSTGRES ? "TEXT" : "VARCHAR(2000)");
        open(db);
    }

    /** SQLite keeps a text of any length whatever the declared type says, so it refuses nothing here. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "SQLITE")
    void sqliteTakesAnyDeclaredLength(TestDatabase db) {
        db.createLeaseTable(QUEUE);
        createDeadLetter(db, "BLOB", "VARCHAR(255)");
        open(db, Outcome.drop("x".repeat(1000))).publisher("dlcols", Job.class).publish(new Job(1));
        Eventually.await(() -> db.count(DEAD + " WHERE LENGTH(error) = 1000") == 1, Duration.ofSeconds(30),
                () -> "the row moved with its whole error text");
    }
}
