package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.internal.jdbc.WriteGate;
import dev.inbox.testkit.InboxTestKit;
import java.lang.ref.WeakReference;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The engine's writers to one SQLite file take turns in the process. */
class WriteGateTest {

    @Test
    void aSecondWriterRunsOnceTheFirstIsDoneAndAWriterMayEnterAgain() throws Exception {
        WriteGate gate = WriteGate.of("jdbc:sqlite:gate-test-" + System.nanoTime());
        List<String> steps = new CopyOnWriteArrayList<>();
        CountDownLatch firstIn = new CountDownLatch(1);
        CountDownLatch letFirstGo = new CountDownLatch(1);
        Thread first = new Thread(() -> {
            try {
                gate.run(() -> {
                    steps.add("first in");
                    firstIn.countDown();
                    await(letFirstGo);
                    gate.run(() -> steps.add("first again")); // the same writer, inside its turn
                    steps.add("first out");
                    return null;
                });
            } catch (Exception e) {
                steps.add("first failed: " + e);
            }
        });
        first.start();
        assertThat(firstIn.await(10, TimeUnit.SECONDS)).isTrue();
        Thread second = new Thread(() -> {
            try {
                gate.run(() -> steps.add("second"));
            } catch (Exception e) {
                steps.add("second failed: " + e);
            }
        });
        second.start();
        Thread.sleep(200); // the second writer waits at the gate meanwhile
        assertThat(steps).containsExactly("first in");
        letFirstGo.countDown();
        first.join(10_000);
        second.join(10_000);
        assertThat(steps).containsExactly("first in", "first again", "first out", "second");
    }

    @Test
    void eachDatabaseHasItsOwnGateSharedByItsBrokers() throws Exception {
        String url = "jdbc:sqlite:gate-test-" + System.nanoTime();
        assertThat(WriteGate.of(url)).isSameAs(WriteGate.of(url));
        WriteGate other = WriteGate.of(url + "-other");
        CountDownLatch entered = new CountDownLatch(1);
        WriteGate.of(url).run(() -> {
            // Another database's writer does not wait for this one.
            Thread t = new Thread(() -> {
                try {
                    other.run(() -> {
                        entered.countDown();
                        return null;
                    });
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            t.start();
            await(entered);
            return null;
        });
    }

    @Test
    void aPublishWaitsForTheWritersAheadOfItNotForTransactionalDeliveriesThatFollowEachOther() throws Exception {
        // Each transactional delivery holds SQLite's write lock from its begin to its commit, and the
        // worker that commits begins its next at once. In SQLite's busy handler the publish, which
        // waited longest, looked for the lock least often: it waited for the whole load (or failed
        // after the busy timeout). Through the gate it waits for the writers ahead of it.
        TestDatabase db = TestDatabase.SQLITE;
        TestTable table = TestTable.of("gate_jobs", TestTable.Feature.LEASE);
        table.create(db);
        db.execute("DROP TABLE IF EXISTS gate_effects", "CREATE TABLE gate_effects (job INTEGER NOT NULL)");
        AtomicInteger handled = new AtomicInteger();
        int load = 150;
        try (InboxTestKit kit = InboxTestKit.on(db.dataSource()).configure(b -> b.pollInterval(Duration.ofMillis(50)))
                .subscribe(Subscription.of("gate", table.spec(), Job.class, (job, d) -> {
                    try (PreparedStatement ps = d.connection().prepareStatement(
                            "INSERT INTO gate_effects (job) VALUES (?)")) {
                        ps.setInt(1, job.n());
                        ps.executeUpdate();
                    }
                    Thread.sleep(10); // work done holding the lock
                    handled.incrementAndGet();
                    return Outcome.ack();
                }).transactional(true).workers(2))
                .start()) {
            kit.publisher("gate", Job.class).publishAll(IntStream.range(0, load).mapToObj(Job::new).toList());
            InboxTestKit.await(() -> handled.get() >= 10, Duration.ofSeconds(30), () -> "the load under way");
            int before = handled.get();
            kit.publisher("gate", Job.class).publish(new Job(load));
            int during = handled.get() - before;
            // Ahead of it: a delivery under way, the other worker's, perhaps the next (before the gate: 8, 139, 1).
            assertThat(during).as("deliveries that committed while the publish waited (of %d left)", load - before)
                    .isLessThanOrEqualTo(4);
            kit.awaitCount(table.name(), 0);
            assertThat(kit.count("gate_effects")).isEqualTo(load + 1);
        }
    }

    @Test
    void aGateNoBrokerHoldsIsLetGoSoTheGatesDoNotGrow() throws Exception {
        String url = "jdbc:sqlite:gate-test-" + System.nanoTime();
        WeakReference<WriteGate> gate = new WeakReference<>(WriteGate.of(url));
        assertThat(WriteGate.databases()).contains(url);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (gate.get() != null && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(gate.get()).as("the gate of a database no broker uses is collected").isNull();
        WriteGate.of(url + "-next");
        assertThat(WriteGate.databases()).doesNotContain(url).contains(url + "-next");
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
