package dev.inbox.bench.alone;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Two engines' drains taking turns in one JVM, one drain each in turn, so that the pace of the
 * machine (which moves by a factor of two within minutes on shared cores) weighs on both alike.
 * Each side is a class path holding {@link EngineAlone} compiled against that side's engine and
 * the engine's classes; it is loaded in a class loader of its own that takes the {@code dev.inbox}
 * classes from there alone. What the engines share (JDBC drivers, Jackson, the pool) comes from this
 * class's class path, JIT-compiled once for both.
 *
 * <p>Arguments: database, form, workers, batch, jobs, measured pairs, unmeasured pairs (the JIT
 * compilers keep working for some twenty drains of 8,000 jobs; CPU per job measured before that
 * is mostly theirs), then {@code label=classpath} for each side. Prints a line per measured pair
 * and, last, the medians of each side and of the pairs' ratios (second side over first):
 * {@code SIDE_BY_SIDE db=.. form=.. workers=.. batch=.. jvm_ratio=.. threads_ratio=.. jobs_ratio=..}.
 */
public final class SideBySide {

    private SideBySide() {}

    public static void main(String[] args) throws Exception {
        String db = args[0];
        String form = args[1];
        int workers = Integer.parseInt(args[2]);
        int batch = Integer.parseInt(args[3]);
        int jobs = Integer.parseInt(args[4]);
        int pairs = Integer.parseInt(args[5]);
        int warm = Integer.parseInt(args[6]);
        Side first = Side.of(args[7]);
        Side second = Side.of(args[8]);
        List<double[]> firstRuns = new ArrayList<>();
        List<double[]> secondRuns = new ArrayList<>();
        List<double[]> ratios = new ArrayList<>();
        for (int pair = 0; pair < warm + pairs; pair++) {
            // Who goes first alternates: the second drain of a pair meets a database the first just left.
            boolean firstLeads = pair % 2 == 0;
            double[] a = firstLeads ? first.drain(db, form, workers, batch, jobs) : null;
            double[] b = second.drain(db, form, workers, batch, jobs);
            if (!firstLeads) {
                a = first.drain(db, form, workers, batch, jobs);
            }
            if (pair < warm) {
                continue;
            }
            firstRuns.add(a);
            secondRuns.add(b);
            double[] ratio = {b[3] / a[3], b[1] / a[1], b[0] / a[0]};
            ratios.add(ratio);
            System.out.printf(Locale.ROOT, "PAIR %d %s: %.0f jobs/s, JVM %.1f, threads %.1f µs/job | %s: %.0f jobs/s,"
                    + " JVM %.1f, threads %.1f µs/job | JVM %.2f, threads %.2f%n", pair - warm + 1, first.label,
                    a[0], a[3], a[1], second.label, b[0], b[3], b[1], ratio[0], ratio[1]);
        }
        printMedians(first.label, firstRuns);
        printMedians(second.label, secondRuns);
        System.out.printf(Locale.ROOT, "SIDE_BY_SIDE db=%s form=%s workers=%d batch=%d %s/%s jvm_ratio=%.2f"
                + " threads_ratio=%.2f jobs_ratio=%.2f%n", db, form, workers, batch, second.label, first.label,
                median(ratios, 0), median(ratios, 1), median(ratios, 2));
        System.exit(0);
    }

    private static void printMedians(String label, List<double[]> runs) {
        System.out.printf(Locale.ROOT, "SIDE %s jobs_per_s=%.0f jvm_us_per_job=%.1f threads_us_per_job=%.1f"
                + " switches_per_job=%.2f%n", label, median(runs, 0), median(runs, 3), median(runs, 1),
                median(runs, 2));
    }

    private static double median(List<double[]> runs, int column) {
        double[] values = runs.stream().mapToDouble(run -> run[column]).sorted().toArray();
        int middle = values.length / 2;
        return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }

    /** One engine: its {@link EngineAlone}, loaded from its own class path. */
    private record Side(String label, ClassLoader loader, Method drainOnce) {

        static Side of(String argument) throws ReflectiveOperationException, IOException {
            int equals = argument.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException("a side is label=classpath, not " + argument);
            }
            List<URL> urls = new ArrayList<>();
            for (String entry : argument.substring(equals + 1).split(File.pathSeparator)) {
                File file = new File(entry);
                if (!file.exists()) {
                    throw new IllegalArgumentException("no such class path entry: " + entry);
                }
                urls.add(file.toURI().toURL());
            }
            ClassLoader loader = new EngineFirst(urls.toArray(URL[]::new), SideBySide.class.getClassLoader());
            Method drainOnce = loader.loadClass("dev.inbox.bench.alone.EngineAlone")
                    .getMethod("drainOnce", String.class, String.class, int.class, int.class, int.class);
            return new Side(argument.substring(0, equals), loader, drainOnce);
        }

        double[] drain(String db, String form, int workers, int batch, int jobs) throws Exception {
            Thread thread = Thread.currentThread();
            ClassLoader before = thread.getContextClassLoader();
            // The engine's service lookups, and the threads it starts, see this side's classes.
            thread.setContextClassLoader(loader);
            try {
                return (double[]) drainOnce.invoke(null, db, form, workers, batch, jobs);
            } finally {
                thread.setContextClassLoader(before);
            }
        }
    }

    /** Takes the engine's classes ({@code dev.inbox}) from its own class path alone, the rest from its parent. */
    private static final class EngineFirst extends URLClassLoader {

        EngineFirst(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("dev.inbox.") || name.equals(SideBySide.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    // Never the parent's: a class one engine lacks must not come from the other.
                    loaded = findClass(name);
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }
    }
}
