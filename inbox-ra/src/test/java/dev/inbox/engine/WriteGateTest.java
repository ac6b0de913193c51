package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
