package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.bench.meter.Meter;
import dev.inbox.bench.peers.DbSchedulerDrain;
import dev.inbox.bench.peers.Drained;
import dev.inbox.bench.peers.JobRunrDrain;
import dev.inbox.bench.peers.PeerLogging;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Measures the engine beside a plain JDBC loop of the same statements on the same threads, for
 * each database, and prints one line per figure:
 * <pre>
 * BENCH name=drain|txdrain|publish db=.. form=.. workers=.. batch=.. jobs_per_s=.. baseline_jobs_per_s=.. ratio=..
 * BENCH name=limit db=.. form=.. workers=.. batch=.. jobs_per_s=.. via=pgbench|procedure
 * BENCH name=latency db=.. form=.. workers=1 batch=1 wake=local|notify|poll p50_ms=.. p99_ms=..
 * BENCH name=peer db=.. peer=inbox-lease|inbox-rowlock|db-scheduler|jobrunr workers=.. jobs=.. jobs_per_s=..
 * </pre>
 * <ul>
 *   <li>drain: a filled table drained by no-op handlers, per form, workers and batch;</li>
 *   <li>limit: the database's own limit for each form's claim and settlement, the client doing as
 *       little as it can, per workers and batch of 16 or more (see {@link Limit});</li>
 *   <li>txdrain: the same with transactional handlers that insert a row into {@code bench_effects}
 *       through the delivery's connection, at the largest batch (row lock claims take one row
 *       each in this mode, so batch 1);</li>
 *   <li>publish: inserts into an empty lease table, per workers and batch (see {@link PublishBench});</li>
 *   <li>latency: publish to handler start over 1,000 jobs at a low rate (see {@link LatencyBench});</li>
 *   <li>peers: on PostgreSQL and MariaDB, the engine's drain (lease and row lock, batch 16) beside
 *       db-scheduler and JobRunr draining the same number of no-op jobs with the same threads
 *       ({@code dev.inbox.bench.peers}); see {@link #peers}.</li>
 * </ul>
 * For each figure the engine and the baseline first run once on {@code jobs} jobs, unmeasured: a
 * warm-up, and a measure of how many jobs the faster of them does in {@code seconds} (the first
 * figure of each part and form runs each side again, unmeasured, on that many, until the JIT
 * compilers are nearly done: {@link #warmUp}). The figure is
 * then the best (highest jobs per second) of {@code repeats} runs of that many jobs (at least
 * {@code jobs}, at most 100,000), engine and baseline taking turns, each run timed from its first
 * claim (or insert) to its last settlement, with the CPU time it took in this JVM and on the
 * machine. Lines also go to
 * {@code inbox-bench/target/bench/results.txt}, tables to {@code results.md} and the drain chart to
 * {@code drain.png} beside it. Arguments: see {@link BenchArgs}.
 */
public final class Bench {
    private static final int LATENCY_JOBS = 1000;

    private final BenchArgs args;
    private final Results results = new Results();
    /** The parts, databases and forms whose code has run long enough for the JIT (see {@link #throughput}). */
    private final Set<String> warmed = new HashSet<>();
    private int failures;

    private Bench(BenchArgs args) {
        this.args = args;
    }

    /** The most jobs a measured run takes: the drain's table of the benchmark's definition. */
    private static final int MAX_JOBS = 100_000;
    /** The most pairs of warm-up runs of a part and form's first figure. */
    private static final int MAX_WARM_UPS = 6;
    /** The share of a pair of warm-up runs' wall time the JIT compilers may take once warm. */
    private static final double JIT_QUIET = 0.02;

    /** The databases of the peers part: db-scheduler and JobRunr keep no jobs in SQLite here. */
    private static final List<String> PEER_DATABASES = List.of("postgres", "mariadb");
    /** The engine's claim batch in the peers part: what a user who wants throughput picks. */
    private static final int PEER_BATCH = 16;
    /**
     * How long the slowest peer's measured run should last, per {@code seconds}: long enough that
     * JobRunr's first look for work (1 s after its start) is a small part of it.
     */
    private static final int PEER_SECONDS_PER_SECOND = 5;
    /** The most jobs a measured run of the peers part takes, so the part stays a few minutes. */
    private static final int MAX_PEER_JOBS = 20_000;

    /** A measured run of {@code jobs} jobs. */
    @FunctionalInterface
    private interface Run {
        Meter.Measured run(int jobs) throws Exception;
    }

    public static void main(String[] argv) throws Exception {
        System.setProperty("java.awt.headless", "true");
        PeerLogging.quiet();
        BenchArgs args = BenchArgs.parse(argv);
        long start = System.nanoTime();
        Bench bench = new Bench(args);
        for (String name : args.dbs()) {
            bench.database(database(name));
        }
        Path out = Path.of(System.getProperty("bench.out", "target/bench"));
        String heading = "inbox-bench " + args.describe() + ", " + Duration.ofNanos(System.nanoTime() - start)
                .toSeconds() + " s";
        bench.results.write(out, heading);
        List<Results.Throughput> drains = bench.results.throughputs("drain");
        if (!drains.isEmpty()) {
            Chart.drains(drains, out.resolve("drain.png"));
        }
        System.out.println("results in " + out.toAbsolutePath() + " (" + heading + ")");
        System.exit(bench.failures == 0 ? 0 : 1);
    }

    private static BenchDatabase database(String name) throws IOException {
        return switch (name) {
            case "postgres" -> new BenchDatabase(name, env("INBOX_TEST_POSTGRES_URL",
                    "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
            case "mariadb" -> new BenchDatabase(name, env("INBOX_TEST_MARIADB_URL",
                    "jdbc:mariadb://127.0.0.1:3306/test?user=root"));
            case "galera" -> new BenchDatabase(name, env("INBOX_BENCH_GALERA_URL",
                    "jdbc:mariadb://127.0.0.1:3311/test?user=root"));
            default -> new BenchDatabase(name, "jdbc:sqlite:"
                    + Files.createTempDirectory("inbox-bench").resolve("bench.db"));
        };
    }

    private static String env(String variable, String fallback) {
        String value = System.getenv(variable);
        return value == null || value.isBlank() ? fallback : value;
    }

    private void database(BenchDatabase db) {
        long start = System.nanoTime();
        parts(db);
        System.out.println("# " + db.name() + " took " + Duration.ofNanos(System.nanoTime() - start).toSeconds() + " s");
    }

    private void parts(BenchDatabase db) {
        List<ClaimForm> forms = args.forms().stream().filter(db::serves).toList();
        String noLimit = args.runs("limit") ? Limit.unavailable(db) : null;
        if (noLimit != null) {
            results.note("SKIPPED name=limit db=" + db.name() + ": " + noLimit);
        } else if (args.runs("limit") && args.limitBatches().isEmpty()) {
            results.note("SKIPPED name=limit db=" + db.name() + ": no batch of 16 or more in batches=");
        }
        boolean limits = args.runs("limit") && noLimit == null;
        // A limit is measured right after the drain of its cell, where there is one: the machine's load
        // then weighs on both alike.
        Set<List<Object>> limitsDone = new HashSet<>();
        if (args.runs("drain")) {
            for (ClaimForm form : forms) {
                for (int workers : args.workers()) {
                    for (int batch : args.batches()) {
                        drain("drain", db, form, workers, batch);
                        if (limits && args.limitWorkers().contains(workers) && args.limitBatches().contains(batch)) {
                            limit(db, form, workers, batch);
                            limitsDone.add(List.of(form, workers, batch));
                        }
                    }
                }
            }
        }
        if (limits) {
            for (ClaimForm form : forms) {
                for (int workers : args.limitWorkers()) {
                    for (int batch : args.limitBatches()) {
                        if (!limitsDone.contains(List.of(form, workers, batch))) {
                            limit(db, form, workers, batch);
                        }
                    }
                }
            }
        }
        if (args.runs("publish")) {
            for (int workers : args.workers()) {
                for (int batch : args.batches()) {
                    throughput("publish", db, PublishBench.FORM, workers, batch,
                            jobs -> PublishBench.engine(db, workers, batch, jobs),
                            jobs -> PublishBench.baseline(db, workers, batch, jobs));
                }
            }
        }
        if (args.runs("txdrain")) {
            for (ClaimForm form : forms) {
                for (int workers : args.workers()) {
                    drain("txdrain", db, form, workers, form == ClaimForm.ROW_LOCK ? 1 : args.bestBatch());
                }
            }
        }
        if (args.runs("peers") && PEER_DATABASES.contains(db.name())) {
            for (int workers : args.workers()) {
                peers(db, workers);
            }
        }
        if (args.runs("latency")) {
            for (ClaimForm form : forms) {
                latency(db, form, LatencyBench.Wake.LOCAL);
                if (db.dialect().capabilities().notifications()) {
                    latency(db, form, LatencyBench.Wake.NOTIFY);
                    latency(db, form, LatencyBench.Wake.POLL);
                }
            }
        }
    }

    private void drain(String name, BenchDatabase db, ClaimForm form, int workers, int batch) {
        boolean transactional = name.equals("txdrain");
        String what = "name=" + name + " db=" + db.name() + " form=" + BenchArgs.name(form) + " workers=" + workers
                + " batch=" + batch;
        throughput(name, db, form, workers, batch,
                jobs -> checked(what + " side=engine", db, transactional, jobs,
                        EngineDrain.run(db, form, workers, batch, jobs, transactional)),
                jobs -> {
                    db.fill(form, jobs);
                    return checked(what + " side=baseline", db, transactional, jobs,
                            BaselineDrain.run(db, form, workers, batch, jobs, transactional));
                });
    }

    /**
     * A limit figure, sized as a throughput figure is: an unmeasured run of about {@code jobs} jobs,
     * then the best of {@code repeats} runs of as many rounds as that run did in {@code seconds},
     * settling at most the 100,000 jobs of a drain from a table of at most twice that (an advisory
     * claim may take fewer rows than its batch, so its table holds more than it settles).
     */
    private void limit(BenchDatabase db, ClaimForm form, int workers, int batch) {
        String what = "name=limit db=" + db.name() + " form=" + BenchArgs.name(form) + " workers=" + workers
                + " batch=" + batch;
        try {
            int perRound = workers * batch;
            Limit.Run first = Limit.run(db, form, workers, batch, Math.max(1, args.jobs() / perRound));
            double settledPerRound = Math.max(1.0, (double) first.settled() / first.rounds());
            double rounds = Math.min(first.rounds() / first.seconds() * args.seconds(),
                    Math.min(MAX_JOBS / settledPerRound, 2.0 * MAX_JOBS / perRound));
            Limit.Run best = null;
            for (int r = 0; r < args.repeats(); r++) {
                Limit.Run run = Limit.run(db, form, workers, batch, (int) Math.max(1, rounds));
                if (form != ClaimForm.ADVISORY && run.settled() != run.planned()) {
                    results.warn("CHECK " + what + " planned=" + run.planned() + " settled=" + run.settled()
                            + ": a claim found fewer rows than its batch");
                }
                best = best == null || run.jobsPerS() > best.jobsPerS() ? run : best;
            }
            results.add(new Results.Limit(db.name(), BenchArgs.name(form), workers, batch, best.settled(),
                    best.jobsPerS(), best.via()));
        } catch (Exception e) {
            failed(what, e);
        }
    }

    /**
     * Fails a drain that left jobs in the table; warns when a transactional drain wrote other than
     * one effect per job (a job delivered twice, or an effect committed without its ack).
     */
    private Meter.Measured checked(String what, BenchDatabase db, boolean transactional, int jobs,
            Meter.Measured measured) throws Exception {
        long left = db.count(BenchDatabase.TABLE);
        if (left != 0) {
            throw new IllegalStateException(what + " settled " + jobs + " jobs, and " + left
                    + " rows are left in the table");
        }
        long effects = transactional ? db.count(BenchDatabase.EFFECTS) : jobs;
        if (effects != jobs) {
            results.warn("CHECK " + what + " jobs=" + jobs + " effects=" + effects + ": "
                    + (effects > jobs ? "jobs were delivered more than once, each time committing its effect"
                    : "acks committed without their effects"));
        }
        return measured;
    }

    private void throughput(String name, BenchDatabase db, ClaimForm form, int workers, int batch, Run engine,
            Run baseline) {
        String what = "name=" + name + " db=" + db.name() + " form=" + BenchArgs.name(form) + " workers=" + workers
                + " batch=" + batch;
        try {
            // An unmeasured first run of each side warms it up and tells how many jobs fill the measured runs.
            double rate = Math.max(engine.run(args.jobs()).jobsPerS(), baseline.run(args.jobs()).jobsPerS());
            int jobs = (int) Math.min(MAX_JOBS, Math.max(args.jobs(), Math.round(rate * args.seconds())));
            if (warmed.add(name + " " + db.name() + " " + form)) {
                // The first figure of a part and form meets code the JIT has not compiled yet.
                warmUp(engine, baseline, jobs);
            }
            Meter.Measured best = null;
            Meter.Measured bestBaseline = null;
            for (int r = 0; r < args.repeats(); r++) {
                best = faster(best, engine.run(jobs));
                bestBaseline = faster(bestBaseline, baseline.run(jobs));
            }
            results.add(new Results.Throughput(name, db.name(), BenchArgs.name(form), workers, batch, jobs, best,
                    bestBaseline));
        } catch (Exception e) {
            failed(what, e);
        }
    }

    /**
     * Unmeasured runs of each side until the JIT compilers are nearly done with their code (a
     * pair of runs during which they compiled for less than {@link #JIT_QUIET} of its wall time),
     * at most {@link #MAX_WARM_UPS} pairs: a server runs the engine's code compiled, and on two
     * cores the compilers' CPU would otherwise be taken from the measured runs, most from the
     * side with more code.
     */
    private static void warmUp(Run engine, Run baseline, int jobs) throws Exception {
        for (int i = 0; i < MAX_WARM_UPS; i++) {
            long compiling = Jit.millis();
            long start = System.nanoTime();
            engine.run(jobs);
            baseline.run(jobs);
            double share = (Jit.millis() - compiling) * 1e6 / (System.nanoTime() - start);
            if (share < JIT_QUIET) {
                return;
            }
        }
    }

    private static Meter.Measured faster(Meter.Measured a, Meter.Measured b) {
        return a == null || b.jobsPerS() > a.jobsPerS() ? b : a;
    }

    private static Drained faster(Drained a, Drained b) {
        return b.measured().jobsPerS() > a.measured().jobsPerS() ? b : a;
    }

    /** A peer of the peers part: its name in the lines and a drain of {@code jobs} jobs. */
    private record Peer(String name, PeerRun run) {}

    @FunctionalInterface
    private interface PeerRun {
        Drained run(int jobs) throws Exception;
    }

    /**
     * One cell of the peers part: the engine (lease and row lock, batch 16) beside db-scheduler and
     * JobRunr where they run on the database, all with {@code workers} threads on the same number
     * of jobs. Each first drains {@code jobs} jobs, unmeasured. The slowest one's rate once its jobs
     * flow (after its first completion) sizes the measured runs: {@code 5 * seconds} of its work, at
     * least {@code jobs} and at most 20,000 jobs, so that JobRunr's start (its first look for work
     * comes 1 s after it) is a small part of its run and the part stays a few minutes. The measured
     * runs take turns; the best of each peer is reported.
     */
    private void peers(BenchDatabase db, int workers) {
        List<Peer> peers = new ArrayList<>();
        for (ClaimForm form : List.of(ClaimForm.LEASE, ClaimForm.ROW_LOCK)) {
            String name = "inbox-" + BenchArgs.name(form);
            String what = peerFigure(db, name, workers);
            peers.add(new Peer(name, jobs -> new Drained(checked(what, db, false, jobs,
                    EngineDrain.run(db, form, workers, PEER_BATCH, jobs, false)), Double.NaN)));
        }
        if (DbSchedulerDrain.serves(db.name())) {
            peers.add(new Peer(DbSchedulerDrain.NAME, jobs -> DbSchedulerDrain.run(db.name(), db.url(), workers, jobs)));
        }
        if (JobRunrDrain.serves(db.name())) {
            peers.add(new Peer(JobRunrDrain.NAME, jobs -> JobRunrDrain.run(db.name(), db.url(), workers, jobs)));
        }
        double slowest = Double.MAX_VALUE;
        for (Peer peer : List.copyOf(peers)) {
            try {
                slowest = Math.min(slowest, peer.run().run(args.jobs()).flowingJobsPerS(args.jobs()));
            } catch (Exception e) {
                peers.remove(peer);
                failed(peerFigure(db, peer.name(), workers), e);
            }
        }
        int jobs = (int) Math.min(MAX_PEER_JOBS,
                Math.max(args.jobs(), Math.round(slowest * PEER_SECONDS_PER_SECOND * args.seconds())));
        Map<String, Drained> best = new LinkedHashMap<>();
        for (int r = 0; r < args.repeats(); r++) {
            for (Peer peer : List.copyOf(peers)) {
                try {
                    best.merge(peer.name(), peer.run().run(jobs), Bench::faster);
                } catch (Exception e) {
                    peers.remove(peer);
                    best.remove(peer.name());
                    failed(peerFigure(db, peer.name(), workers), e);
                }
            }
        }
        best.forEach((name, drained) -> results.add(new Results.Peer(db.name(), name, workers, jobs, drained)));
    }

    /** How a peer's figure is named in its line and in a failure. */
    private static String peerFigure(BenchDatabase db, String peer, int workers) {
        return "name=peer db=" + db.name() + " peer=" + peer + " workers=" + workers;
    }

    private void latency(BenchDatabase db, ClaimForm form, LatencyBench.Wake wake) {
        String wakeName = wake.name().toLowerCase(java.util.Locale.ROOT);
        try {
            LatencyBench.Percentiles p = LatencyBench.run(db, form, wake, LATENCY_JOBS);
            results.add(new Results.Latency(db.name(), BenchArgs.name(form), wakeName, p.p50(), p.p99()));
        } catch (Exception e) {
            failed("name=latency db=" + db.name() + " form=" + BenchArgs.name(form) + " wake=" + wakeName, e);
        }
    }

    private void failed(String what, Exception e) {
        failures++;
        results.failed("FAILED " + what + ": " + e);
        e.printStackTrace();
    }
}
