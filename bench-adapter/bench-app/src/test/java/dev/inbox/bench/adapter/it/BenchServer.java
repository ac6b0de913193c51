package dev.inbox.bench.adapter.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The Open Liberty server the build created with the bench EAR (its own name and port, 9180),
 * started and stopped by the harness with the server's own scripts.
 */
final class BenchServer {
    private final Path wlp = Path.of(System.getProperty("bench.liberty.dir"));
    private final String name = System.getProperty("bench.server", "inboxAdapterBench");
    private final Path server = wlp.resolve("usr/servers").resolve(name);
    private boolean started;

    /** Points the server at {@code db} (postgres, mariadb) with these JVM options (MicroProfile Config as -D). */
    void configure(String db, List<String> jvmOptions) throws IOException {
        Files.writeString(server.resolve("bootstrap.properties"), "bench.db=" + db + "\n", StandardCharsets.UTF_8);
        Files.write(server.resolve("jvm.options"), jvmOptions);
    }

    /** Starts the server and waits until the application opened its handlers on the adapter. */
    void start() throws IOException, InterruptedException {
        Files.deleteIfExists(messages());
        run("start", "--clean");
        started = true;
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            String log = log();
            if (log.contains("opened 2 handler(s)")) {
                return;
            }
            if (log.contains("CWWKZ0002E") || log.contains("CWWKZ0004E") || log.contains("CWWKZ0106E")
                    || log.contains("SRVE0283E")) {
                throw new IllegalStateException("the bench application failed to start; see " + messages());
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the bench application did not open its handlers within 120 s; see "
                + messages());
    }

    /**
     * Stops the server as an operator would: its quiesce waits only for the adapter's tasks in
     * progress, which are short. Prints how long the stop took.
     */
    void stop() throws IOException, InterruptedException {
        if (started) {
            long t = System.nanoTime();
            run("stop");
            started = false;
            System.out.printf(java.util.Locale.ROOT, "bench-adapter: server stopped in %.1f s%n",
                    (System.nanoTime() - t) / 1e9);
        }
    }

    /** The process id of the server's JVM, for thread dumps. */
    String pid() throws IOException {
        Path pid = wlp.resolve("usr/servers/.pid").resolve(name + ".pid");
        return Files.exists(pid) ? Files.readString(pid).trim() : null;
    }

    Path messages() {
        return server.resolve("logs/messages.log");
    }

    String log() throws IOException {
        return Files.exists(messages()) ? Files.readString(messages()) : "";
    }

    private void run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(wlp.resolve("bin/server").toString(), args[0], name));
        command.addAll(List.of(args).subList(1, args.length));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0 && !(args[0].equals("stop") && out.contains("not running"))) {
            throw new IllegalStateException("server " + String.join(" ", args) + " failed: " + out);
        }
    }
}
