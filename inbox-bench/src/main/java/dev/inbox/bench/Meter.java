package dev.inbox.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Times a measured stretch: wall clock, this process's CPU time, and the machine's busy CPU time
 * (from {@code /proc/stat}, where there is one). CPU per job shows where a figure's time went:
 * the engine's own work in this JVM, or the database's beside it. Public for the peers part
 * ({@code dev.inbox.bench.peers}), which times other schedulers with it.
 */
public final class Meter {
    private static final Path PROC_STAT = Path.of("/proc/stat");
    /** Linux counts /proc/stat in clock ticks of 10 ms. */
    private static final double NANOS_PER_TICK = 10e6;

    private final long wallStart = System.nanoTime();
    private final long processStart = processCpu();
    private final long machineStart = machineBusyTicks();

    /** What a stretch of {@code jobs} jobs cost. NaN where a figure cannot be read. */
    public record Measured(double jobsPerS, double processCpuUsPerJob, double machineCpuUsPerJob) {}

    public static Meter start() {
        return new Meter();
    }

    public Measured stop(long jobs) {
        long wall = System.nanoTime() - wallStart;
        long process = processCpu() - processStart;
        long machine = machineBusyTicks() - machineStart;
        return new Measured(jobs / (wall / 1e9), processStart < 0 ? Double.NaN : process / 1e3 / jobs,
                machineStart < 0 ? Double.NaN : machine * NANOS_PER_TICK / 1e3 / jobs);
    }

    private static long processCpu() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
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
