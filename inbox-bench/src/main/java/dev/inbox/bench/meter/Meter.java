package dev.inbox.bench.meter;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Times a measured stretch: wall clock, this process's CPU time, the CPU time of its Java threads,
 * and the machine's busy CPU time (from {@code /proc/stat}, where there is one). CPU per job shows
 * where a figure's time went: the engine's own work in this JVM, or the database's beside it.
 *
 * <p>The process's CPU time includes the JIT compilers and the garbage collector, whose threads
 * are not Java threads. In a benchmark's short runs the compilers take as much CPU as the work
 * itself, and more for the side with more code to compile (profiles with async-profiler showed
 * half the process's CPU in compiler threads), so the threads' figure is the one that compares
 * the engine's work with the loop's: the CPU of every Java thread that ran during the stretch.
 *
 * <p>Public for the peers part ({@code dev.inbox.bench.peers}), which times other schedulers with it.
 */
public final class Meter {
    private static final Path PROC_STAT = Path.of("/proc/stat");
    /** Linux counts /proc/stat in clock ticks of 10 ms. */
    private static final double NANOS_PER_TICK = 10e6;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final long wallStart = System.nanoTime();
    private final long processStart = processCpu();
    private final Map<Long, Long> threadsStart = threadsCpu();
    private final long machineStart = machineBusyTicks();

    /** What a stretch of {@code jobs} jobs cost. NaN where a figure cannot be read. */
    public record Measured(double jobsPerS, double processCpuUsPerJob, double threadsCpuUsPerJob,
            double machineCpuUsPerJob) {}

    public static Meter start() {
        return new Meter();
    }

    public Measured stop(long jobs) {
        return stop(jobs, 0);
    }

    /**
     * The stretch's cost, with {@code endedThreadsCpu}: the CPU time (ns) threads that ended
     * before this call spent in it, which they reported themselves (an ended thread's CPU time
     * can no longer be read).
     */
    public Measured stop(long jobs, long endedThreadsCpu) {
        long wall = System.nanoTime() - wallStart;
        long process = processCpu() - processStart;
        long machine = machineBusyTicks() - machineStart;
        long threads = endedThreadsCpu;
        for (Map.Entry<Long, Long> now : threadsCpu().entrySet()) {
            threads += now.getValue() - threadsStart.getOrDefault(now.getKey(), 0L);
        }
        return new Measured(jobs / (wall / 1e9), processStart < 0 ? Double.NaN : process / 1e3 / jobs,
                threadsStart.isEmpty() ? Double.NaN : threads / 1e3 / jobs,
                machineStart < 0 ? Double.NaN : machine * NANOS_PER_TICK / 1e3 / jobs);
    }

    /** The calling thread's CPU time in nanoseconds, for a thread that ends before the stretch does. */
    public static long currentThreadCpu() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : 0;
    }

    private static long processCpu() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** The CPU time of each live Java thread by id (ids are never reused); empty where it cannot be read. */
    private static Map<Long, Long> threadsCpu() {
        Map<Long, Long> cpu = new HashMap<>();
        if (!THREADS.isThreadCpuTimeSupported()) {
            return cpu;
        }
        for (long id : THREADS.getAllThreadIds()) {
            long time = THREADS.getThreadCpuTime(id);
            if (time >= 0) {
                cpu.put(id, time);
            }
        }
        return cpu;
    }

    /** user + nice + system + irq + softirq + steal ticks of all CPUs; -1 without /proc/stat. */
    private static long machineBusyTicks() {
        try {
            String[] f = Files.readAllLines(PROC_STAT).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
                busy += Long.parseLong(f[i]);
            }
            return busy;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
