package dev.inbox.bench.adapter.it;

import dev.inbox.Delivery;
import dev.inbox.Subscription;
import dev.inbox.engine.InboxBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;

/**
 * Drains a filled queue table on Open Liberty through the resource adapter, the CDI extension
 * and (for the transactional case) JTA, and the same table through the engine alone in this JVM,
 * with the same workers, batch size and poll interval, alternating in the same run. Prints
 * {@code BENCH name=adapter|adapter-tx db=.. form=lease workers=.. batch=.. jobs_per_s=<adapter>
 * baseline_jobs_per_s=<engine alone> ratio=..} and appends the lines to {@code target/bench/results.txt}.
 *
 * <p>How a drain is timed, the same way for both: the table is filled in one transaction with
 * rows leased until an instant {@code due} a little after the fill commits, so no claim can take
 * a row before {@code due} however long the fill takes, and both consumers are already running
 * and polling every 50 ms (the broker started, the server up with its handlers open). The drain
 * lasts from {@code due} until a count of the table, taken every 20 ms, finds it empty.
 */
class AdapterDrainIT {
    private static final Duration POLL = Duration.ofMillis(50);

    private final int jobs = Integer.getInteger("bench.jobs", 20_000);
    private final int repeats = Integer.getInteger("bench.repeats", 3);
    private final int workers = Integer.getInteger("bench.workers", 4);
    private final int batch = Integer.getInteger("bench.batch", 16);
    private final List<String> dbs = List.of(System.getProperty("bench.dbs", "postgres").split(","));
    private final List<String> lines = new ArrayList<>();
    private BenchServer server;
    private boolean dumpThreads;
    /** -Dbench.jfr=true: flight recordings of the server and of this JVM (the engine alone) in target/bench. */
    private final boolean jfr = Boolean.getBoolean("bench.jfr");
    /** How long after a fill starts its rows fall due: at least twice the longest fill so far. */
    private Duration fillMargin = Duration.ofMillis(1000);

    /** One drain: jobs per second, and the consumer's CPU per job in microseconds (-1 when unknown). */
    private record Drain(double jobsPerSecond, double cpuMicrosPerJob) {}

    /** One measured case: the adapter's queue and the engine's table of the same shape. */
    private record Case(String name, String queue, String table, boolean transactional) {}

    private static final List<Case> CASES = List.of(new Case("adapter", "bench-lease", "jobs", false),
            new Case("adapter-tx", "bench-tx", "txjobs", true));

    @Test
    void drainThroughTheAdapterBesideTheEngineAlone() throws Exception {
        server = new BenchServer();
        Thread stopper = new Thread(() -> {
            try {
                server.stop();
            } catch (Exception e) {
                // best effort when the JVM is killed
            }
        });
        Runtime.getRuntime().addShutdownHook(stopper);
        try {
            for (String db : dbs) {
                BenchTables tables = new BenchTables(db, url(db));
                tables.create();
                List<String> options = new ArrayList<>(List.of("-Dinbox.poll-interval=" + POLL.toMillis() + "ms",
                        "-Dinbox.queue.bench-lease.workers=" + workers, "-Dinbox.queue.bench-lease.batch-size=" + batch,
                        "-Dinbox.queue.bench-tx.workers=" + workers, "-Dinbox.queue.bench-tx.batch-size=" + batch));
                if (jfr) {
                    options.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
                            + resultsDir().resolve("server-" + db + ".jfr"));
                }
                server.configure(db, options);
                long t = System.nanoTime();
                server.start();
                System.out.printf(Locale.ROOT, "bench-adapter: server up with handlers open on %s in %.1f s%n", db,
                        (System.nanoTime() - t) / 1e9);
                InboxBroker engine = engine(tables);
                Recording recording = jfr ? new Recording(Configuration.getConfiguration("profile")) : null;
                if (recording != null) {
                    recording.start();
                }
                try {
                    for (Case c : CASES) {
                        dumpThreads = Boolean.getBoolean("bench.threads");
                        measure(tables, engine, c);
                    }
                } finally {
                    engine.shutdown(Duration.ofSeconds(5));
                    server.stop();
                    if (recording != null) {
                        recording.dump(resultsDir().resolve("engine-" + db + ".jfr"));
                        recording.close();
                    }
                }
                warnings(server.log());
            }
        } finally {
            server.stop();
            Runtime.getRuntime().removeShutdownHook(stopper);
            Path results = resultsDir().resolve("results.txt");
            Files.write(results, lines, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            System.out.println("bench-adapter: results appended to " + results.toAbsolutePath());
        }
    }

    /** A warm-up run of each, then the best of the repeats, engine and adapter alternating. */
    private void measure(BenchTables tables, InboxBroker engine, Case c) throws Exception {
        double bestEngine = 0;
        double bestAdapter = 0;
        for (int run = 0; run <= repeats; run++) {
            // The warm-up is a whole run: the server's JIT needs about that before its figures settle.
            int n = jobs;
            Drain engineRun = drain(tables, BenchTables.ENGINE, c, n);
            Drain adapterRun = drain(tables, BenchTables.ADAPTER, c, n);
            double e = engineRun.jobsPerSecond();
            double a = adapterRun.jobsPerSecond();
            System.out.printf(Locale.ROOT, "bench-adapter: db=%s case=%s run=%s jobs=%d engine=%.0f adapter=%.0f"
                    + " ratio=%.2f cpu_us_per_job engine=%.0f adapter=%.0f%n", tables.db(), c.name(),
                    run == 0 ? "warm-up" : run, n, e, a, a / e, engineRun.cpuMicrosPerJob(),
                    adapterRun.cpuMicrosPerJob());
            if (run > 0) {
                bestEngine = Math.max(bestEngine, e);
                bestAdapter = Math.max(bestAdapter, a);
            }
        }
        report(String.format(Locale.ROOT, "BENCH name=%s db=%s form=lease workers=%d batch=%d jobs_per_s=%.0f"
                + " baseline_jobs_per_s=%.0f ratio=%.2f", c.name(), tables.db(), workers, batch, bestAdapter,
                bestEngine, bestAdapter / bestEngine));
    }

    /**
     * Fills the case's table of {@code prefix} and waits for it to drain; returns the rate and the
     * CPU the consumer (this JVM for the engine alone, the server's for the adapter) spent per job.
     */
    private Drain drain(BenchTables tables, String prefix, Case c, int n) throws Exception {
        String table = prefix + c.table();
        try (Connection watch = tables.connect()) {
            for (int attempt = 1; ; attempt++) {
                tables.empty(prefix, c.table());
                Instant start = Instant.now();
                Instant due = start.plus(fillMargin);
                if (tables.db().equals("mariadb")) {
                    due = Instant.ofEpochSecond(due.getEpochSecond() + 1); // DATETIME keeps whole seconds
                }
                Instant committed = tables.fill(prefix, c.table(), n, due);
                Duration took = Duration.between(start, committed);
                if (took.multipliedBy(2).compareTo(fillMargin) > 0) {
                    fillMargin = took.multipliedBy(2); // a loaded machine: later fills get more time
                }
                if (committed.isAfter(due.minusMillis(100))) {
                    // The drain may have begun before the rows were all there: not a fair measurement.
                    awaitEmpty(tables, watch, table);
                    if (attempt == 3) {
                        throw new IllegalStateException("filling " + table + " took " + took.toMillis() + " ms, past"
                                + " the instant its rows fall due, three times");
                    }
                    continue;
                }
                String consumer = prefix.equals(BenchTables.ADAPTER) ? server.pid() : "self";
                Thread.sleep(Math.max(0, Duration.between(Instant.now(), due).toMillis()));
                double cpuBefore = ProcessCpu.millis(consumer);
                if (dumpThreads && prefix.equals(BenchTables.ADAPTER) && n == jobs) {
                    dumpThreads = false;
                    threadDump(tables.db(), c);
                }
                Instant end = awaitEmpty(tables, watch, table);
                double cpuAfter = ProcessCpu.millis(consumer);
                if (c.transactional()) {
                    long effects = tables.count(watch, prefix + "effects");
                    if (effects != n) {
                        throw new IllegalStateException(prefix + "effects holds " + effects + " rows after " + n
                                + " transactional deliveries; expected one each");
                    }
                }
                return new Drain(n / (Duration.between(due, end).toNanos() / 1e9),
                        cpuBefore < 0 || cpuAfter < 0 ? -1 : (cpuAfter - cpuBefore) * 1000 / n);
            }
        }
    }

    /**
     * With -Dbench.threads=true: the server's threads 300 ms into the first measured adapter drain
     * of each case, in target/bench/threads-db-case.txt, to see where its workers wait.
     */
    private void threadDump(String db, Case c) {
        Thread dumper = new Thread(() -> {
            try {
                Thread.sleep(300);
                Path out = resultsDir().resolve("threads-" + db + "-" + c.name() + ".txt");
                new ProcessBuilder("jcmd", server.pid(), "Thread.print").redirectErrorStream(true)
                        .redirectOutput(out.toFile()).start().waitFor();
            } catch (Exception e) {
                System.out.println("bench-adapter: no thread dump: " + e);
            }
        });
        dumper.setDaemon(true);
        dumper.start();
    }

    /** Counts the table every 20 ms until it is empty; returns when it was found empty. */
    private static Instant awaitEmpty(BenchTables tables, Connection watch, String table) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (tables.count(watch, table) != 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(table + " did not drain within 5 minutes");
            }
            Thread.sleep(20);
        }
        return Instant.now();
    }

    /** The engine alone: the same subscriptions on the engine's tables, with a pool of its own. */
    private InboxBroker engine(BenchTables tables) {
        String effects = "INSERT INTO " + BenchTables.ENGINE + "effects (n) VALUES (?)";
        return InboxBroker.fromUrl(tables.url()).connectionLimit(2 * workers + 4).pollInterval(POLL)
                .subscribe(Subscription.of("bench-lease", BenchTables.spec(BenchTables.ENGINE + "jobs"), Job.class,
                        (Job job, Delivery d) -> null).workers(workers).batchSize(batch))
                .subscribe(Subscription.of("bench-tx", BenchTables.spec(BenchTables.ENGINE + "txjobs"), Job.class,
                        (Job job, Delivery d) -> {
                            try (PreparedStatement insert = d.connection().prepareStatement(effects)) {
                                insert.setLong(1, job.n());
                                insert.executeUpdate();
                            }
                            return null;
                        }).workers(workers).batchSize(batch).transactional(true))
                .connect();
    }

    /** The server's warnings, which may explain a slow drain. */
    private static void warnings(String log) {
        log.lines().filter(l -> l.contains(" W ") || l.contains(" E ")).limit(20)
                .forEach(l -> System.out.println("bench-adapter: server log: " + l));
    }

    /** target/bench, where results, thread dumps and recordings go. */
    private static Path resultsDir() throws java.io.IOException {
        return Files.createDirectories(Path.of(System.getProperty("bench.results", "target/bench/results.txt"))
                .toAbsolutePath().getParent());
    }

    private void report(String line) {
        System.out.println(line);
        lines.add(line);
    }

    private static String url(String db) {
        String fromBuild = System.getProperty("inbox.test." + db + ".url");
        if (fromBuild != null && !fromBuild.isBlank() && !fromBuild.startsWith("${")) {
            return fromBuild;
        }
        return switch (db) {
            case "postgres" -> "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
            case "mariadb" -> "jdbc:mariadb://127.0.0.1:3306/test?user=root";
            default -> throw new IllegalArgumentException("unknown database " + db + ": use postgres or mariadb");
        };
    }
}
