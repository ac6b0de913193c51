package dev.inbox.bench;

import dev.inbox.bench.meter.Meter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;

/** Runs one worker per thread, each opened (connections, statements) before the clock starts. */
final class Parallel {

    /** One thread's work, and what it holds open. */
    interface Worker extends AutoCloseable {
        void run() throws Exception;

        @Override
        default void close() throws Exception {}
    }

    /** Opens the worker of thread {@code index}. */
    @FunctionalInterface
    interface Opener {
        Worker open(int index) throws Exception;
    }

    private Parallel() {}

    /** Measures {@code jobs} from the start of the workers until the last one ends; the first failure is thrown. */
    static Meter.Measured time(int threads, long jobs, Opener opener) throws Exception {
        List<Exception> failures = new CopyOnWriteArrayList<>();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        LongAdder threadsCpu = new LongAdder(); // the workers end before the clock stops: each adds its own
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread thread = new Thread(() -> {
                Worker worker = null;
                try {
                    worker = opener.open(index);
                } catch (Exception e) {
                    failures.add(e);
                } finally {
                    ready.countDown();
                }
                if (worker != null) {
                    long cpu = Meter.currentThreadCpu(); // after opening, which is not measured
                    try (Worker open = worker) {
                        go.await();
                        open.run();
                    } catch (Exception e) {
                        failures.add(e);
                    } finally {
                        threadsCpu.add(Meter.currentThreadCpu() - cpu);
                    }
                }
            }, "bench-" + t);
            started.add(thread);
            thread.start();
        }
        ready.await();
        Meter meter = Meter.start();
        go.countDown();
        for (Thread thread : started) {
            thread.join();
        }
        Meter.Measured measured = meter.stop(jobs, threadsCpu.sum());
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
        return measured;
    }

    /** How many of {@code jobs} thread {@code index} of {@code threads} takes. */
    static int share(int jobs, int threads, int index) {
        return jobs / threads + (index < jobs % threads ? 1 : 0);
    }
}
