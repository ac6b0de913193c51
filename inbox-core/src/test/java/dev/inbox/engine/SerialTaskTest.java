package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.internal.task.PlatformThreads;
import dev.inbox.internal.task.SerialTask;
import dev.inbox.spi.Threads;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The engine's unit of scheduling: one step at a time, run again when signalled meanwhile, no thread held idle. */
class SerialTaskTest {
    @Test
    void aSignalWhileTheStepRunsRunsItOnceMoreAndNeverTwoAtOnce() throws Exception {
        CountingThreads threads = new CountingThreads();
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger atOnce = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch letFirstEnd = new CountDownLatch(1);
        SerialTask task = new SerialTask(threads, "serial", () -> {
            mostAtOnce.accumulateAndGet(atOnce.incrementAndGet(), Math::max);
            try {
                if (runs.incrementAndGet() == 1) {
                    firstRunning.countDown();
                    letFirstEnd.await();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                atOnce.decrementAndGet();
            }
            return false;
        });
        task.signal();
        assertThat(firstRunning.await(5, TimeUnit.SECONDS)).isTrue();
        Thread[] signallers = new Thread[8];
        for (int i = 0; i < signallers.length; i++) {
            signallers[i] = new Thread(() -> {
                for (int n = 0; n < 100; n++) {
                    task.signal();
                }
            });
            signallers[i].start();
        }
        for (Thread signaller : signallers) {
            signaller.join();
        }
        letFirstEnd.countDown();
        assertThat(task.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(runs).as("800 signals while it ran: one run more").hasValue(2);
        assertThat(mostAtOnce).hasValue(1);
    }

    @Test
    void aStepWithMoreToDoHandsOverToANewTaskEverySlice() throws Exception {
        CountingThreads threads = new CountingThreads();
        long end = System.nanoTime() + Threads.SLICE.multipliedBy(5).toNanos();
        AtomicInteger steps = new AtomicInteger();
        SerialTask task = new SerialTask(threads, "busy", () -> {
            steps.incrementAndGet();
            return System.nanoTime() < end;
        });
        task.signal();
        assertThat(task.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(threads.tasks.get()).as("tasks for five slices of steps").isBetween(4, 8);
        assertThat(steps.get()).isGreaterThan(threads.tasks.get());
    }

    @Test
    void aStepThatThrowsRunsAgainWhenSignalled() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        SerialTask task = new SerialTask(new PlatformThreads(), "throws", () -> {
            if (runs.incrementAndGet() == 1) {
                throw new IllegalStateException("a step's failure, logged");
            }
            return false;
        });
        task.signal();
        assertThat(task.awaitIdle(Duration.ofSeconds(5))).isTrue();
        task.signal();
        assertThat(task.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(runs).hasValue(2);
    }
}
