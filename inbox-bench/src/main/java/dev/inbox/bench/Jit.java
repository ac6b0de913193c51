package dev.inbox.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/** The time the JIT compilers have spent so far, which tells when the code under measure is compiled. */
final class Jit {
    private static final CompilationMXBean COMPILER = ManagementFactory.getCompilationMXBean();

    private Jit() {}

    /** Milliseconds the compilers have compiled since the JVM started; 0 where the JVM does not say. */
    static long millis() {
        return COMPILER != null && COMPILER.isCompilationTimeMonitoringSupported() ? COMPILER.getTotalCompilationTime()
                : 0;
    }
}
