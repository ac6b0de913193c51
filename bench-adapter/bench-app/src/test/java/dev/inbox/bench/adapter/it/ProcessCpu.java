package dev.inbox.bench.adapter.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time a process has used so far, from {@code /proc/<pid>/stat} (Linux; -1 elsewhere). On
 * a machine short of cores the drain rate follows the CPU each path spends per job, so the
 * harness reports that too.
 */
final class ProcessCpu {
    private static final double TICK_MS = 10; // USER_HZ is 100 on Linux

    private ProcessCpu() {}

    /** Milliseconds of user and system time of {@code pid} ("self" for this JVM), or -1. */
    static double millis(String pid) {
        if (pid == null) {
            return -1;
        }
        try {
            String stat = Files.readString(Path.of("/proc", pid, "stat"));
            // The fields after the command name, which is in parentheses and may hold spaces.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * TICK_MS;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
