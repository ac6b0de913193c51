package dev.inbox.bench.alone;

import dev.inbox.ClaimForm;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.engine.InboxBroker;
import dev.inbox.spi.BrokerListener;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The engine's drain alone, through the public API only, so that the same class compiled against
 * another commit's {@code inbox-api} and {@code inbox-core} measures that commit's engine: two
 * engines taking turns in the same hour compare where runs of the benchmark on different days do
 * not (the machine's pace moves by a factor of two and more). Prints one line with the best jobs
 * per second, and of the measured run with the median CPU per job of the Java threads: that CPU,
 * the whole JVM's (JIT compilers and garbage collector too), and the process's context switches
 * per job (from {@code /proc}, where there is one). {@link SideBySide} runs two commits' copies in
 * turns in one JVM.
 *
 * <p>Arguments: database ({@code postgres}, {@code mariadb}, {@code sqlite}), form ({@code LEASE},
 * {@code ROW_LOCK}, {@code ADVISORY}), workers, batch, jobs, measured runs, unmeasured runs
 * (default 4; the JIT compilers need some twenty drains of 8,000 jobs). inbox-bench/README.md says
 * how to run it against another commit. It compiles alone
 * (its tables are its own, not {@code BenchDatabase}'s, which builds on the engine's SPI of today).
 */
public final class EngineAlone {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final String TABLE = "bench_alone_jobs";

    private EngineAlone() {}

    public static void main(String[] args) throws Exception {
        String db = args[0];
        ClaimForm form = ClaimForm.valueOf(args[1]);
        int workers = Integer.parseInt(args[2]);
        int batch = Integer.parseInt(args[3]);
        int jobs = Integer.parseInt(args[4]);
        int runs = Integer.parseInt(args[5]);
        int unmeasured = args.length > 6 ? Integer.parseInt(args[6]) : 4;
        List<double[]> measured = new ArrayList<>();
        for (int i = 0; i < unmeasured + runs; i++) {
            double[] run = drainOnce(db, form.name(), workers, batch, jobs);
            if (i >= unmeasured) {
                measured.add(run);
            }
        }
        measured.sort(Comparator.comparingDouble(run -> run[1]));
        double best = measured.stream().mapToDouble(run -> run[0]).max().orElseThrow();
        double[] median = measured.get(measured.size() / 2);
        System.out.printf(Locale.ROOT, "ALONE db=%s form=%s workers=%d batch=%d jobs_per_s=%.0f cpu_us_per_job=%.1f"
                + " jvm_us_per_job=%.1f switches_per_job=%.2f%n", db, form, workers, batch, best, median[1], median[3],
                median[2]);
        System.exit(0);
    }

    /**
     * One drain of {@code jobs} rows on {@code db} ({@code postgres}, {@code mariadb}, {@code sqlite}):
     * jobs per second, CPU µs per job of the Java threads, context switches per job, and CPU µs
     * per job of the whole JVM (with its JIT compilers and garbage collector). {@link SideBySide}
     * calls it through reflection, on a copy of this class loaded with each engine.
     */
    public static double[] drainOnce(String db, String form, int workers, int batch, int jobs) throws Exception {
        return drain(url(db), db, ClaimForm.valueOf(form), workers, batch, jobs);
    }

    private static String sqliteUrl;

    private static synchronized String url(String db) throws IOException {
        return switch (db) {
            case "postgres" -> env("INBOX_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
            case "mariadb" -> env("INBOX_TEST_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root");
            default -> sqliteUrl != null ? sqliteUrl
                    : (sqliteUrl = "jdbc:sqlite:" + Files.createTempDirectory("inbox-alone").resolve("bench.db"));
        };
    }

    /** One drain of {@code jobs} rows: see {@link #drainOnce}. */
    private static double[] drain(String url, String db, ClaimForm form, int workers, int batch, int jobs)
            throws Exception {
        create(url, db, form);
        CountDownLatch settled = new CountDownLatch(jobs);
        Set<Object> ids = ConcurrentHashMap.newKeySet(2 * jobs);
        InboxSpec spec = InboxSpec.table(TABLE, Column.of("id").generated()).attempt(Column.of("attempt").generated())
                .payload(Column.of("payload"));
        spec = switch (form) {
            case LEASE -> spec.lease(Column.of("locked_until"));
            case ADVISORY -> spec.advisoryLock(Column.of("advisory_lock"));
            case ROW_LOCK -> spec;
        };
        Subscription<Object> subscription = Subscription.of("alone", spec, Object.class, (payload, d) -> Outcome.ack())
                .workers(workers).batchSize(batch).prefetch(2 * batch);
        InboxBroker broker = InboxBroker.fromUrl(url).connectionLimit(2 * workers + 4).listener(new BrokerListener() {
            @Override
            public void settled(String queue, Object id, int attempt, Outcome outcome) {
                if (ids.add(id)) {
                    settled.countDown();
                }
            }
        }).subscribe(subscription).connect();
        try {
            insert(url, jobs);
            long switches = switches();
            Map<Long, Long> cpu = threadsCpu();
            long process = processCpu();
            long start = System.nanoTime();
            broker.wake("alone");
            if (!settled.await(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException(settled.getCount() + " jobs not drained");
            }
            long wall = System.nanoTime() - start;
            long jvm = processCpu() - process;
            long threads = 0;
            long main = Thread.currentThread().getId();
            for (Map.Entry<Long, Long> now : threadsCpu().entrySet()) {
                if (now.getKey() != main) {
                    threads += now.getValue() - cpu.getOrDefault(now.getKey(), 0L);
                }
            }
            return new double[] {jobs / (wall / 1e9), threads / 1e3 / jobs, (switches() - switches) / (double) jobs,
                jvm / 1e3 / jobs};
        } finally {
            broker.shutdown(Duration.ofSeconds(5));
        }
    }

    /** The CPU time of the whole JVM: its Java threads, the garbage collector's and the JIT compilers'. */
    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static Map<Long, Long> threadsCpu() {
        Map<Long, Long> cpu = new HashMap<>();
        for (long id : THREADS.getAllThreadIds()) {
            long time = THREADS.getThreadCpuTime(id);
            if (time >= 0) {
                cpu.put(id, time);
            }
        }
        return cpu;
    }

    /** Voluntary and involuntary context switches of every thread of this process; 0 without /proc. */
    private static long switches() {
        long switches = 0;
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        for (java.io.File task : tasks == null ? new java.io.File[0] : tasks) {
            try {
                for (String line : Files.readAllLines(task.toPath().resolve("status"))) {
                    if (line.contains("ctxt_switches")) {
                        switches += Long.parseLong(line.split("\\s+")[1]);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // a thread that ended meanwhile
            }
        }
        return switches;
    }

    private static void create(String url, String db, ClaimForm form) throws SQLException {
        String id = switch (db) {
            case "postgres" -> "BIGSERIAL PRIMARY KEY";
            case "mariadb" -> "BIGINT AUTO_INCREMENT PRIMARY KEY";
            default -> "INTEGER PRIMARY KEY";
        };
        String time = switch (db) {
            case "postgres" -> "TIMESTAMPTZ";
            case "mariadb" -> "DATETIME NULL";
            default -> "TEXT";
        };
        String formColumn = switch (form) {
            case LEASE -> ", locked_until " + time;
            case ADVISORY -> ", advisory_lock BIGINT";
            case ROW_LOCK -> "";
        };
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            if (db.equals("sqlite")) {
                s.execute("PRAGMA journal_mode = WAL");
            }
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            s.execute("CREATE TABLE " + TABLE + " (id " + id + ", attempt SMALLINT NOT NULL DEFAULT 1" + formColumn
                    + ", payload " + (db.equals("postgres") ? "BYTEA" : "BLOB") + " NOT NULL)");
        }
    }

    private static void insert(String url, int jobs) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (payload) VALUES (?)")) {
                for (int i = 0; i < jobs; i++) {
                    ps.setBytes(1, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
                    ps.addBatch();
                    if (i % 1000 == 999) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
            }
            c.commit();
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
