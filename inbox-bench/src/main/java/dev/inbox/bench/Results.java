package dev.inbox.bench;

import dev.inbox.bench.meter.Meter;
import dev.inbox.bench.peers.Drained;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.DoubleSummaryStatistics;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Every figure of a run: printed as one {@code BENCH} line as it is measured, and at the end
 * written to {@code results.txt} (the lines) and {@code results.md} (tables README can take).
 */
final class Results {

    /** A throughput figure of the engine beside its baseline, both runs of {@code jobs} jobs. */
    record Throughput(String name, String db, String form, int workers, int batch, int jobs, Meter.Measured engine,
            Meter.Measured baseline) {
        double jobsPerS() {
            return engine.jobsPerS();
        }

        double baselineJobsPerS() {
            return baseline.jobsPerS();
        }

        double ratio() {
            return jobsPerS() / baselineJobsPerS();
        }

        String line() {
            return String.format(Locale.ROOT, "BENCH name=%s db=%s form=%s workers=%d batch=%d jobs_per_s=%.0f"
                    + " baseline_jobs_per_s=%.0f ratio=%.2f", name, db, form, workers, batch, jobsPerS(),
                    baselineJobsPerS(), ratio());
        }
    }

    /**
     * The database's own limit for a form's claim and settlement (see {@link dev.inbox.bench.Limit}).
     *
     * @param jobs the rows the measured run settled
     * @param via  {@code pgbench} or {@code procedure}
     */
    record Limit(String db, String form, int workers, int batch, long jobs, double jobsPerS, String via) {
        String line() {
            return String.format(Locale.ROOT, "BENCH name=limit db=%s form=%s workers=%d batch=%d jobs_per_s=%.0f"
                    + " via=%s", db, form, workers, batch, jobsPerS, via);
        }
    }

    /** A latency figure: publish to handler start. */
    record Latency(String db, String form, String wake, double p50, double p99) {
        String line() {
            return String.format(Locale.ROOT, "BENCH name=latency db=%s form=%s workers=1 batch=1 wake=%s"
                    + " p50_ms=%.2f p99_ms=%.2f", db, form, wake, p50, p99);
        }
    }

    /** A drain of the peers part: the engine or another scheduler, every peer of a cell on {@code jobs} jobs. */
    record Peer(String db, String peer, int workers, int jobs, Drained drained) {
        double jobsPerS() {
            return drained.measured().jobsPerS();
        }

        Meter.Measured measured() {
            return drained.measured();
        }

        /** With {@code first_ms} where the clock includes the peer's start: db-scheduler and JobRunr. */
        String line() {
            return String.format(Locale.ROOT, "BENCH name=peer db=%s peer=%s workers=%d jobs=%d jobs_per_s=%.0f%s"
                    + " threads_cpu_us_per_job=%.0f", db, peer, workers, jobs, jobsPerS(), Double.isNaN(drained.firstMs())
                    ? "" : String.format(Locale.ROOT, " first_ms=%.0f", drained.firstMs()),
                    measured().threadsCpuUsPerJob());
        }
    }

    private final List<Throughput> throughputs = new ArrayList<>();
    private final List<Limit> limits = new ArrayList<>();
    private final List<Latency> latencies = new ArrayList<>();
    private final List<Peer> peers = new ArrayList<>();
    private final List<String> lines = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    void add(Throughput figure) {
        throughputs.add(figure);
        print(figure.line());
    }

    void add(Limit figure) {
        limits.add(figure);
        print(figure.line());
    }

    void add(Latency figure) {
        latencies.add(figure);
        print(figure.line());
    }

    void add(Peer figure) {
        peers.add(figure);
        print(figure.line());
    }

    /** A figure that could not be measured: printed and kept with the lines. */
    void failed(String line) {
        print(line);
        notes.add(line);
    }

    /** A part left out, and why: printed and kept with the lines. */
    void note(String line) {
        print(line);
        notes.add(line);
    }

    /** Something a figure's run did wrong, though it was measured: printed and kept with the lines. */
    void warn(String line) {
        print(line);
        notes.add(line);
    }

    private void print(String line) {
        System.out.println(line);
        lines.add(line);
    }

    List<Throughput> throughputs(String name) {
        return throughputs.stream().filter(t -> t.name().equals(name)).toList();
    }

    /** Writes {@code results.txt} and {@code results.md} into {@code directory}. */
    void write(Path directory, String heading) throws IOException {
        Files.createDirectories(directory);
        Files.write(directory.resolve("results.txt"), lines);
        Files.writeString(directory.resolve("results.md"), markdown(heading));
    }

    /**
     * The limit figures, each beside the drain of the same database, form, workers and batch where
     * the run measured one; then, per database, form and batch, the best limit beside the best
     * drain: the database's limit at the sessions that suit it best against the engine at the
     * workers that suit it best (its workers are handler threads, fed by fewer claim loops).
     */
    private void limits(StringBuilder md) {
        md.append("\n**limit** (jobs per second: the database's own limit for the form's claim and settlement,"
                + " one session per worker, beside the drain of the same cell in this run)\n\n")
                .append("| db | form | workers | batch | jobs | limit | via | engine | engine / limit"
                        + " | plain JDBC | plain JDBC / limit |\n")
                .append("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
        List<Throughput> drains = throughputs("drain");
        for (Limit l : limits) {
            Throughput drain = drains.stream().filter(t -> t.db().equals(l.db()) && t.form().equals(l.form())
                    && t.workers() == l.workers() && t.batch() == l.batch()).findFirst().orElse(null);
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %d | %.0f | %s | ", l.db(), l.form(),
                    l.workers(), l.batch(), l.jobs(), l.jobsPerS(), l.via()));
            md.append(drain == null ? "– | – | – | – |" : String.format(Locale.ROOT, "%.0f | %.2f | %.0f | %.2f |",
                    drain.jobsPerS(), drain.jobsPerS() / l.jobsPerS(), drain.baselineJobsPerS(),
                    drain.baselineJobsPerS() / l.jobsPerS()));
            md.append('\n');
        }
        StringBuilder best = new StringBuilder();
        for (Limit l : limits) {
            List<Limit> cell = limits.stream().filter(o -> o.db().equals(l.db()) && o.form().equals(l.form())
                    && o.batch() == l.batch()).toList();
            List<Throughput> cellDrains = drains.stream().filter(t -> t.db().equals(l.db())
                    && t.form().equals(l.form()) && t.batch() == l.batch()).toList();
            if (cell.get(0) != l || cellDrains.isEmpty()) {
                continue; // one row per database, form and batch
            }
            Limit top = cell.stream().max(Comparator.comparingDouble(Limit::jobsPerS)).orElseThrow();
            Throughput engine = cellDrains.stream()
                    .max(Comparator.comparingDouble(Throughput::jobsPerS)).orElseThrow();
            Throughput baseline = cellDrains.stream()
                    .max(Comparator.comparingDouble(Throughput::baselineJobsPerS)).orElseThrow();
            best.append(String.format(Locale.ROOT,
                    "| %s | %s | %d | %.0f (%d) | %.0f (%d) | %.2f | %.0f (%d) | %.2f |%n", l.db(), l.form(),
                    l.batch(), top.jobsPerS(), top.workers(), engine.jobsPerS(), engine.workers(),
                    engine.jobsPerS() / top.jobsPerS(), baseline.baselineJobsPerS(), baseline.workers(),
                    baseline.baselineJobsPerS() / top.jobsPerS()));
        }
        if (!best.isEmpty()) {
            md.append("\n**limit, each side at its best** (jobs per second, the workers in brackets: the highest"
                    + " limit and the highest drain of each database, form and batch in this run)\n\n")
                    .append("| db | form | batch | limit | engine | engine / limit | plain JDBC"
                            + " | plain JDBC / limit |\n")
                    .append("|---|---|---:|---:|---:|---:|---:|---:|\n")
                    .append(best);
        }
    }

    String markdown(String heading) {
        StringBuilder md = new StringBuilder("<!-- ").append(heading).append(" -->\n");
        for (String name : List.of("drain", "txdrain", "publish")) {
            List<Throughput> figures = throughputs(name);
            if (figures.isEmpty()) {
                continue;
            }
            md.append("\n**").append(name).append("** (jobs per second; CPU time per job, in this JVM and on the whole"
                    + " machine with the database, of the measured runs; the JVM's includes the JIT compilers and the garbage"
                    + " collector, the threads' is the work alone)\n\n")
                    .append("| db | form | workers | batch | jobs | engine | plain JDBC | ratio"
                            + " | threads CPU µs/job, engine / JDBC | JVM CPU µs/job, engine / JDBC"
                            + " | machine CPU µs/job, engine / JDBC |\n")
                    .append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (Throughput t : figures) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %d | %.0f | %.0f | %.2f | %.1f / %.1f"
                        + " | %.0f / %.0f | %.0f / %.0f |%n", t.db(), t.form(), t.workers(), t.batch(), t.jobs(),
                        t.jobsPerS(), t.baselineJobsPerS(), t.ratio(), t.engine().threadsCpuUsPerJob(),
                        t.baseline().threadsCpuUsPerJob(), t.engine().processCpuUsPerJob(),
                        t.baseline().processCpuUsPerJob(), t.engine().machineCpuUsPerJob(),
                        t.baseline().machineCpuUsPerJob()));
            }
        }
        if (!limits.isEmpty()) {
            limits(md);
        }
        if (!latencies.isEmpty()) {
            md.append("\n**latency** (publish to handler start, milliseconds)\n\n")
                    .append("| db | form | wake | p50 | p99 |\n")
                    .append("|---|---|---|---:|---:|\n");
            for (Latency l : latencies) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %.2f | %.2f |%n", l.db(), l.form(), l.wake(),
                        l.p50(), l.p99()));
            }
        }
        if (!peers.isEmpty()) {
            peerTables(md);
        }
        if (!notes.isEmpty()) {
            md.append("\n**checks and notes**\n\n");
            notes.forEach(note -> md.append("- `").append(note).append("`\n"));
        }
        return md.toString();
    }

    /**
     * The peers part as two tables with a row per peer and a column per database and workers:
     * jobs per second, then this JVM's CPU time per job (the machine's is left out: on a shared
     * machine it counts other work over JobRunr's long runs). A peer that does not run on a
     * database has a dash. Then how long after its start each peer completed its first job.
     */
    private void peerTables(StringBuilder md) {
        List<String> rows = peers.stream().map(Peer::peer).distinct().toList();
        List<Peer> columns = new ArrayList<>();
        for (Peer p : peers) {
            if (columns.stream().noneMatch(c -> c.db().equals(p.db()) && c.workers() == p.workers())) {
                columns.add(p);
            }
        }
        StringBuilder header = new StringBuilder("| peer |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Peer c : columns) {
            header.append(String.format(Locale.ROOT, " %s, %d %s (%d jobs) |", c.db(), c.workers(),
                    c.workers() == 1 ? "worker" : "workers", c.jobs()));
            rule.append("---:|");
        }
        md.append("\n**peers** (jobs per second, a no-op job drained from a filled table, timed from the start of"
                + " the scheduler to the last completion written; best of the measured runs)\n\n");
        peerTable(md, header, rule, rows, columns, p -> String.format(Locale.ROOT, "%.0f", p.jobsPerS()));
        md.append("\n**peers, CPU** (µs per job in the Java threads that ran: the work, without the JIT compilers)\n\n");
        peerTable(md, header, rule, rows, columns,
                p -> String.format(Locale.ROOT, "%.0f", p.measured().threadsCpuUsPerJob()));
        md.append("\nFirst job completed after the start, ms:");
        for (String row : rows) {
            DoubleSummaryStatistics first = peers.stream().filter(p -> p.peer().equals(row))
                    .mapToDouble(p -> p.drained().firstMs()).filter(ms -> !Double.isNaN(ms)).summaryStatistics();
            if (first.getCount() > 0) {
                md.append(String.format(Locale.ROOT, " %s %.0f to %.0f;", row, first.getMin(), first.getMax()));
            }
        }
        md.append(" the engine's clock starts as it claims.\n");
    }

    private void peerTable(StringBuilder md, CharSequence header, CharSequence rule, List<String> rows,
            List<Peer> columns, Function<Peer, String> cell) {
        md.append(header).append('\n').append(rule).append('\n');
        for (String row : rows) {
            md.append("| ").append(row).append(" |");
            for (Peer c : columns) {
                md.append(' ').append(find(row, c).map(cell).orElse("–")).append(" |");
            }
            md.append('\n');
        }
    }

    private Optional<Peer> find(String peer, Peer column) {
        return peers.stream().filter(p -> p.peer().equals(peer) && p.db().equals(column.db())
                && p.workers() == column.workers()).findFirst();
    }
}
