package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.BrokerHealth;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.QueueHealth;
import dev.inbox.Subscription;
import dev.inbox.internal.task.PlatformThreads;
import dev.inbox.spi.Threads;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link InboxBroker#health()}: ready while every subscription's claims succeed, not ready with the
 * table and the reason while they fail, ready again once they succeed; not live while a claim loop
 * waits for a thread longer than {@code stuckAfter}; not running before connect and after shutdown.
 */
class HealthTest {
    private static final String TABLE = "health_jobs";

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void failingClaimsMakeTheQueueNotReadyNamingItsTableUntilTheyRecover(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        db.execute("DROP TABLE IF EXISTS " + TABLE + "_away");
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("health", Job.leaseTable(TABLE), Job.class, (job, d) -> Outcome.ack()))
                .connect();
        try {
            BrokerHealth up = broker.health();
            assertThat(up.running()).isTrue();
            assertThat(up.ready()).isTrue();
            assertThat(up.live()).isTrue();
            assertThat(up.queues()).containsExactly(new QueueHealth("health", true, true, false, ""));

            db.execute(rename(db, TABLE, TABLE + "_away"));
            Eventually.await(() -> !broker.health().ready(), Duration.ofSeconds(10), () -> "still ready");
            QueueHealth failing = broker.health().queues().get(0);
            assertThat(failing.ready()).isFalse();
            assertThat(failing.live()).as("failing, not stuck: the loop comes round with back-off").isTrue();
            assertThat(failing.problem()).contains("queue health: claiming from table " + TABLE, "has failed");

            db.execute(rename(db, TABLE + "_away", TABLE));
            Eventually.await(() -> broker.health().ready(), Duration.ofSeconds(30),
                    () -> "not ready again: " + broker.health());
            assertThat(broker.health().queues().get(0).problem()).isEmpty();
        } finally {
            broker.shutdown();
        }
        assertThat(broker.health().running()).isFalse();
        assertThat(broker.health().ready()).isFalse();
    }

    /** A claim loop whose task gets no thread (a starved or stopped executor) is not live, and live again once it runs. */
    @Test
    void aClaimLoopWaitingForAThreadIsNotLive() throws Exception {
        notLiveWhileHeld(name -> true, Duration.ofSeconds(30), "queue health: a claim loop has waited", "for a thread");
    }

    /** A lease keeper that gets no thread lets leases in work run out: the queue is not live while claims go on. */
    @Test
    void aLeaseKeeperWithoutAThreadIsNotLive() throws Exception {
        notLiveWhileHeld(name -> name.endsWith("-keeper"), Duration.ofSeconds(1),
                "queue health: the lease keeper of table " + TABLE + " is", "leases in work may run out");
    }

    /**
     * Holds the broker's tasks {@code held} names: the queue is no longer live, its problem says
     * {@code problem}, nothing has failed (ready); once released, live again.
     */
    private static void notLiveWhileHeld(java.util.function.Predicate<String> held, Duration lease,
            String... problem) throws Exception {
        TestDatabase db = TestDatabase.SQLITE;
        db.createLeaseTable(TABLE);
        HeldThreads threads = new HeldThreads();
        threads.only = held;
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50)).threads(threads)
                .lease(lease).stuckAfter(Duration.ofMillis(300))
                .subscribe(Subscription.of("health", Job.leaseTable(TABLE), Job.class, (job, d) -> Outcome.ack()))
                .connect();
        try {
            assertThat(broker.health().live()).isTrue();
            threads.hold = true;
            Eventually.await(() -> !broker.health().live(), Duration.ofSeconds(10), () -> "still live");
            QueueHealth stuck = broker.health().queues().get(0);
            assertThat(stuck.problem()).contains(problem);
            assertThat(stuck.ready()).as("nothing failed").isTrue();

            threads.release();
            Eventually.await(() -> broker.health().live(), Duration.ofSeconds(10),
                    () -> "not live again: " + broker.health());
        } finally {
            threads.release();
            broker.shutdown();
        }
    }

    @Test
    void beforeConnectNothingRuns() {
        InboxBroker broker = InboxBroker.fromUrl(TestDatabase.SQLITE.url());
        assertThat(broker.health()).isEqualTo(new BrokerHealth(false, List.of(), ""));
        assertThatThrownBy(() -> broker.stuckAfter(Duration.ZERO)).isInstanceOf(InboxException.class)
                .hasMessageContaining("stuckAfter must be a positive duration");
    }

    private static String rename(TestDatabase db, String from, String to) {
        return db == TestDatabase.MARIADB ? "RENAME TABLE " + from + " TO " + to
                : "ALTER TABLE " + from + " RENAME TO " + to;
    }

    /** Platform threads that, while {@code hold} is set, keep the tasks handed to them instead of running them. */
    private static final class HeldThreads implements Threads {
        private final Threads platform = new PlatformThreads();
        private final List<Runnable> held = new CopyOnWriteArrayList<>();
        volatile boolean hold;
        /** The tasks held, by name: every task unless set. */
        volatile java.util.function.Predicate<String> only = name -> true;

        @Override
        public void run(String name, Runnable task) {
            if (hold && only.test(name)) {
                held.add(task);
            } else {
                platform.run(name, task);
            }
        }

        @Override
        public void schedule(Duration delay, Runnable signal) {
            platform.schedule(delay, signal);
        }

        void release() {
            hold = false;
            for (Runnable task : held) {
                held.remove(task);
                platform.run("released", task);
            }
        }
    }
}
