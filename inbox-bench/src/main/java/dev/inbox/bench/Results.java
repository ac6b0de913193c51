package dev.inbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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

    /** A latency figure: publish to handler start. */
    record Latency(String db, String form, String wake, double p50, double p99) {
        String line() {
            return String.format(Locale.ROOT, "BENCH name=latency db=%s form=%s workers=1 batch=1 wake=%s"
                    + " p50_ms=%.2f p99_ms=%.2f", db, form, wake, p50, p99);
        }
    }

    private final List<Throughput> throughputs = new ArrayList<>();
    private final List<Latency> latencies = new ArrayList<>();
    private final List<String> lines = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    void add(Throughput figure) {
        throughputs.add(figure);
        print(figure.line());
    }

    void add(Latency figure) {
        latencies.add(figure);
        print(figure.line());
    }

    /** A figure that could not be measured: printed and kept with the lines. */
    void failed(String line) {
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
        if (!latencies.isEmpty()) {
            md.append("\n**latency** (publish to handler start, milliseconds)\n\n")
                    .append("| db | form | wake | p50 | p99 |\n")
                    .append("|---|---|---|---:|---:|\n");
            for (Latency l : latencies) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %.2f | %.2f |%n", l.db(), l.form(), l.wake(),
                        l.p50(), l.p99()));
            }
        }
        if (!notes.isEmpty()) {
            md.append("\n**checks**\n\n");
            notes.forEach(note -> md.append("- `").append(note).append("`\n"));
        }
        return md.toString();
    }
}
