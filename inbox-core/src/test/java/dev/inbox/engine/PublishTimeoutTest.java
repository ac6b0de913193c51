package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.Publisher;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A publish while another transaction locks the queue's table waits no longer than the broker's
 * publish timeout, then fails naming the table and the timeout, having inserted nothing.
 */
class PublishTimeoutTest {
    private InboxBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.shutdown(Duration.ofSeconds(2));
        }
    }

    /** What locks the whole table on {@code db} until the connection's transaction ends. */
    private static String lockTable(TestDatabase db) {
        return switch (db) {
            case POSTGRES -> "LOCK TABLE timeout_jobs IN ACCESS EXCLUSIVE MODE";
            case SQLITE -> "BEGIN EXCLUSIVE";
            default -> "LOCK TABLES timeout_jobs WRITE";
        };
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "SQLITE", "CONNECTOR_J"})
    void aPublishWhileTheTableIsLockedFailsWithinTheTimeoutAndInsertsNothing(TestDatabase db) throws Exception {
        TestTable table = TestTable.of("timeout_jobs", ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        broker = InboxBroker.fromUrl(db.url()).publishTimeout(Duration.ofSeconds(1)).route("timeout", table.spec())
                .connect();
        Publisher<Job> publisher = broker.publisher("timeout", Job.class);
        try (Connection locker = DriverManager.getConnection(db.url())) {
            if (db == TestDatabase.POSTGRES) {
                locker.setAutoCommit(false);
            }
            try (Statement statement = locker.createStatement()) {
                statement.execute(lockTable(db));
            }
            // Its own transaction, batches, and the caller's transaction on a connection of its own.
            fails(() -> publisher.publish(new Job(1)));
            fails(() -> publisher.publishAll(List.of(new Job(2), new Job(3))));
            // More than one statement takes (256 rows): several multi-row inserts in one transaction.
            fails(() -> publisher.publishAll(IntStream.range(10, 310).mapToObj(Job::new).toList()));
            try (Connection caller = db.dataSource().getConnection()) {
                caller.setAutoCommit(false);
                fails(() -> publisher.publish(caller, new Job(4)));
                caller.rollback();
            }
            try (Statement statement = locker.createStatement()) {
                statement.execute(db == TestDatabase.POSTGRES || db == TestDatabase.SQLITE ? "ROLLBACK"
                        : "UNLOCK TABLES");
            }
            if (db == TestDatabase.POSTGRES) {
                locker.setAutoCommit(true);
            }
        }
        assertThat(db.count("timeout_jobs")).as("rows inserted under the lock").isZero();
        publisher.publish(new Job(5));
        assertThat(db.count("timeout_jobs")).as("rows once the lock is gone").isEqualTo(1);
    }

    /** Runs {@code publish} on a thread of its own: it must fail, naming the table and the timeout, within 8 s. */
    private static void fails(Runnable publish) throws Exception {
        CompletableFuture<Throwable> failure = CompletableFuture.supplyAsync(() -> {
            try {
                publish.run();
                return null;
            } catch (Throwable e) {
                return e;
            }
        });
        // 7 s past the timeout; before it, SQLite gave up at its busy timeout of 10 s, the servers not at all.
        Throwable thrown = failure.get(8, TimeUnit.SECONDS);
        Consumer<InboxException> named = e -> {
            assertThat(e.kind()).isEqualTo(InboxException.Kind.DATABASE);
            assertThat(e.getMessage()).contains("table timeout_jobs", "publish timeout of 1 s", "publishTimeout");
        };
        assertThat(thrown).as("the publish under the lock").isNotNull();
        assertThatThrownBy(() -> { throw thrown; }).isInstanceOfSatisfying(InboxException.class, named::accept);
    }

    @Test
    void aTimeoutOutOfItsRangeIsRefusedNamingTheSetting() {
        for (Duration wrong : List.of(Duration.ZERO, Duration.ofMillis(999), Duration.ofHours(2))) {
            assertThatThrownBy(() -> InboxBroker.fromUrl(TestDatabase.SQLITE.url()).publishTimeout(wrong))
                    .isInstanceOfSatisfying(InboxException.class, e -> {
                        assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                        assertThat(e.getMessage()).contains("publishTimeout", "between 1 s and 1 h", wrong.toString());
                    });
        }
    }
}
