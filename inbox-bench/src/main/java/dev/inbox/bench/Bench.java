package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.dialect.MySqlDialect;
import dev.inbox.dialect.PostgresDialect;
import dev.inbox.dialect.SqliteDialect;
import dev.inbox.engine.BrokerListener;
import dev.inbox.engine.InboxBroker;
import dev.inbox.spi.Dialect;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Drains a filled queue table through the engine and through a plain JDBC loop doing the same
 * statements, for each database, claim form, worker count and batch size, and prints one line per
 * measurement: {@code BENCH name=drain db=.. form=.. workers=.. batch=.. jobs_per_s=..
 * baseline_jobs_per_s=.. ratio=..}. Lines also go to {@code target/bench/results.txt}.
 *
 * <p>Arguments, all optional: {@code jobs=20000 repeats=2 dbs=postgres,mariadb,sqlite}.
 */
public final class Bench {
    private final List<String> lines = new ArrayList<>();

    private Bench() {}

    public static void main(String[] args) throws Exception {
        int jobs = 20_000;
        int repeats = 2;
        List<String> dbs = List.of("postgres", "mariadb", "sqlite");
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            switch (kv[0]) {
                case "jobs" -> jobs = Integer.parseInt(kv[1]);
                case "repeats" -> repeats = Integer.parseInt(kv[1]);
                case "dbs" -> dbs = List.of(kv[1].split(","));
                default -> throw new IllegalArgumentException("unknown argument " + arg + ": use jobs=, repeats=, dbs=");
            }
        }
        Bench bench = new Bench();
        for (String name : dbs) {
            BenchDatabase db = database(name);
            for (ClaimForm form : List.of(ClaimForm.LEASE, ClaimForm.ROW_LOCK)) {
                if (db.serves(form)) {
                    bench.drains(db, form, jobs, repeats);
                }
            }
        }
        Path out = Path.of("target", "bench", "results.txt");
        Files.createDirectories(out.getParent());
        Files.write(out, bench.lines);
        System.out.println("results in " + out.toAbsolutePath());
        System.exit(0);
    }

    private static BenchDatabase database(String name) throws IOException {
        return switch (name) {
            case "postgres" -> new BenchDatabase(name, env("INBOX_TEST_POSTGRES_URL",
                    "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
            case "mariadb" -> new BenchDatabase(name, env("INBOX_TEST_MARIADB_URL",
                    "jdbc:mariadb://127.0.0.1:3306/test?user=root"));
            case "sqlite" -> new BenchDatabase(name, "jdbc:sqlite:"
                    + Files.createTempDirectory("inbox-bench").resolve("bench.db"));
            default -> throw new IllegalArgumentException("unknown database " + name);
        };
    }

    private static String env(String variable, String fallback) {
        String value = System.getenv(variable);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static Dialect dialect(BenchDatabase db) {
        return switch (db.name()) {
            case "postgres" -> new PostgresDialect();
            case "mariadb" -> new MySqlDialect();
            default -> new SqliteDialect();
        };
    }

    private void drains(BenchDatabase db, ClaimForm form, int jobs, int repeats) throws Exception {
        for (int workers : new int[] {1, 4, 16}) {
            for (int batch : new int[] {1, 16}) {
                double engine = 0;
                double baseline = 0;
                // A warm-up of each, then the best of the repeats.
                for (int run = 0; run <= repeats; run++) {
                    db.fill(form, run == 0 ? jobs / 10 : jobs);
                    double e = engineDrain(db, form, workers, batch, run == 0 ? jobs / 10 : jobs);
                    db.fill(form, run == 0 ? jobs / 10 : jobs);
                    double b = Baseline.drain(db, dialect(db), form, workers, batch, run == 0 ? jobs / 10 : jobs);
                    if (run > 0) {
                        engine = Math.max(engine, e);
                        baseline = Math.max(baseline, b);
                    }
                }
                report(String.format(Locale.ROOT, "BENCH name=drain db=%s form=%s workers=%d batch=%d jobs_per_s=%.0f"
                        + " baseline_jobs_per_s=%.0f ratio=%.2f", db.name(), form.name().toLowerCase(Locale.ROOT),
                        workers, batch, engine, baseline, engine / baseline));
            }
        }
    }

    /** Drains the filled table through a broker with no-op handlers; returns jobs per second. */
    private static double engineDrain(BenchDatabase db, ClaimForm form, int workers, int batch, int jobs)
            throws InterruptedException {
        CountDownLatch settled = new CountDownLatch(jobs);
        long start = System.nanoTime();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).connectionLimit(workers + 4)
                .pollInterval(Duration.ofMillis(100))
                .listener(new BrokerListener() {
                    @Override
                    public void settled(String queue, Object id, int attempt, Outcome outcome) {
                        settled.countDown();
                    }
                })
                .subscribe(Subscription.of("bench", db.spec(form), Object.class, (payload, d) -> Outcome.ack())
                        .workers(workers).batchSize(batch))
                .connect();
        try {
            if (!settled.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the engine did not drain " + jobs + " jobs in 10 minutes");
            }
            return jobs / ((System.nanoTime() - start) / 1e9);
        } finally {
            broker.shutdown(Duration.ofSeconds(5));
        }
    }

    private void report(String line) {
        System.out.println(line);
        lines.add(line);
    }
}
