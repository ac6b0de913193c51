package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.BrokerHealth;
import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.Subscription;
import dev.inbox.internal.task.PlatformThreads;
import dev.inbox.spi.Threads;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A broker's parts start all or none, and stop together under the one deadline its caller gave:
 * a part that cannot start stops those started before it, and a shutdown returns in time however
 * many queues run and even while their claims hang on the database.
 */
class LifecycleTest {
    private static final int QUEUES = 5;

    /**
     * The second subscription's claim loop cannot start (its threads refuse it): connect fails
     * naming the refusal, and the first subscription, started before it, is stopped again: a job
     * published into its table afterwards is never claimed.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "SQLITE"})
    void aPartThatCannotStartStopsThoseStartedBeforeIt(TestDatabase db) throws Exception {
        TestTable first = table(db, "start_first_jobs");
        TestTable second = table(db, "start_second_jobs");
        AtomicInteger handled = new AtomicInteger();
        Threads platform = new PlatformThreads();
        Threads refusing = new Threads() {
            @Override
            public void run(String name, Runnable task) {
                if (name.startsWith("inbox-second-claim")) {
                    throw new RejectedExecutionException("no thread for " + name);
                }
                platform.run(name, task);
            }

            @Override
            public void schedule(Duration delay, Runnable signal) {
                platform.schedule(delay, signal);
            }
        };
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50)).threads(refusing)
                .subscribe(Subscription.of("first", first.spec(), Job.class, (job, d) -> {
                    handled.incrementAndGet();
                    return Outcome.ack();
                }))
                .subscribe(Subscription.of("second", second.spec(), Job.class, (job, d) -> Outcome.ack()));

        assertThatThrownBy(broker::connect).isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("inbox-second-claim");

        assertThat(broker.health()).extracting(BrokerHealth::running).isEqualTo(false);
        assertThatThrownBy(() -> broker.publisher("first", Job.class).publish(new Job(1)))
                .isInstanceOf(InboxException.class).extracting(e -> ((InboxException) e).kind())
                .isEqualTo(InboxException.Kind.CLOSED);
        InboxBroker publisher = InboxBroker.fromUrl(db.url()).route("first", first.spec()).connect();
        try {
            publisher.publisher("first", Job.class).publish(new Job(1));
            Thread.sleep(1_000); // twenty poll intervals of the broker that failed to start
        } finally {
            publisher.shutdown();
        }
        assertThat(handled).as("the first subscription stopped with the failed start").hasValue(0);
        assertThat(db.count(first.name() + " WHERE attempt = 1")).as("and claimed nothing").isEqualTo(1);
    }

    /**
     * While every table is locked by another session, each queue's claim hangs on the database; a
     * shutdown with a drain of one second stops all five queues together and returns within that
     * second and the grace, not a claim's wait per queue. Once the lock goes, no row was lost (each
     * table holds a job due in an hour, which the claims look past).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "SQLITE"})
    void aShutdownKeepsItsOneDeadlineWhileClaimsHang(TestDatabase db) throws Exception {
        List<TestTable> tables = new ArrayList<>();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50)).connectionLimit(4 * QUEUES);
        for (int q = 0; q < QUEUES; q++) {
            TestTable table = table(db, "hang_" + q + "_jobs");
            tables.add(table);
            broker.subscribe(Subscription.of("hang" + q, table.spec(), Job.class, (job, d) -> Outcome.ack()));
        }
        broker.connect();
        for (int q = 0; q < QUEUES; q++) {
            broker.publisher("hang" + q, Job.class).publish(new Job(q), PublishOptions.NONE.delay(Duration.ofHours(1)));
        }
        Connection locker = db.dataSource().getConnection();
        try {
            lock(db, locker, tables);
            Thread.sleep(500); // every queue's claim now waits for the lock

            long started = System.nanoTime();
            broker.shutdown(Duration.ofSeconds(1));
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(took).as("the drain of one second, the grace, and the pool's close")
                    .isLessThan(Duration.ofSeconds(5));
        } finally {
            unlock(db, locker);
        }
        for (TestTable table : tables) {
            assertThat(db.count(table.name())).as("no row of %s lost", table.name()).isEqualTo(1);
        }
    }

    /** Locks every table against the claims, as a migration or an operator would. */
    private static void lock(TestDatabase db, Connection locker, List<TestTable> tables) throws Exception {
        try (Statement s = locker.createStatement()) {
            switch (db) {
                case POSTGRES -> {
                    locker.setAutoCommit(false);
                    for (TestTable table : tables) {
                        s.execute("LOCK TABLE " + table.name() + " IN ACCESS EXCLUSIVE MODE");
                    }
                }
                case MARIADB -> s.execute("LOCK TABLES " + String.join(", ",
                        tables.stream().map(t -> t.name() + " WRITE").toList()));
                default -> {
                    locker.setAutoCommit(false);
                    s.execute("DELETE FROM " + tables.get(0).name() + " WHERE 0 = 1"); // the write lock, held
                }
            }
        }
    }

    private static void unlock(TestDatabase db, Connection locker) throws Exception {
        try (locker; Statement s = locker.createStatement()) {
            if (db == TestDatabase.MARIADB) {
                s.execute("UNLOCK TABLES");
            } else {
                locker.rollback();
            }
        }
    }

    private static TestTable table(TestDatabase db, String name) {
        TestTable table = TestTable.of(name, ClaimForm.LEASE, TestTable.Feature.ATTEMPT);
        table.create(db);
        return table;
    }
}
