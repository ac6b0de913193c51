package dev.inbox.sample.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Open Liberty server that {@code mvn verify} created with the sample EAR, for what the
 * Arquillian suite ({@link SampleIT}) cannot do: start the server on a configuration chosen per test
 * and read what it logged (a refused deployment, warnings), and run other applications beside the
 * sample (the forms application, two applications on one adapter). Started, stopped and killed with
 * its own scripts.
 */
final class LibertyServer {
    static final String BASE = "http://127.0.0.1:9080/sample/api";

    private final Path wlp = Path.of(System.getProperty("inbox.test.liberty.dir"));
    private final Path server = wlp.resolve("usr/servers/defaultServer");
    private final SampleApi api = new SampleApi(BASE);

    Path outputDir() {
        return server;
    }

    /** The sample's REST API on this server; other applications' pages by their URL. */
    SampleApi api() {
        return api;
    }

    /** Points the server at {@code db} (sqlite, postgres, mariadb) with these JVM system properties. */
    void configure(String db, List<String> systemProperties) throws IOException {
        Files.writeString(server.resolve("bootstrap.properties"), "inbox.db=" + db + "\n", StandardCharsets.UTF_8);
        Files.write(server.resolve("jvm.options"), SampleSettings.with(systemProperties).stream().map(p -> "-D" + p)
                .toList());
    }

    /** Starts the server afresh (its caches cleared, so it reads the configuration) and waits until the sample answers. */
    void start() throws IOException, InterruptedException {
        launch("--clean");
    }

    /** Starts the server as an operator would after a crash (no clean) and waits until the sample answers. */
    void startAgain() throws IOException, InterruptedException {
        launch();
    }

    private void launch(String... options) throws IOException, InterruptedException {
        List<String> args = new java.util.ArrayList<>(List.of("start"));
        args.addAll(List.of(options));
        run(args.toArray(String[]::new));
        // A start takes 4-10 s on an idle machine, and over a minute when other builds load it.
        try {
            api.awaitSample();
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + "; see " + server.resolve("logs"), e);
        }
    }

    /**
     * Starts the server afresh for a configuration the sample refuses, and waits until the server
     * says the application failed to start; returns its messages.log then.
     */
    String startRefused() throws IOException, InterruptedException {
        run("start", "--clean");
        long deadline = System.nanoTime() + Duration.ofSeconds(240).toNanos();
        while (System.nanoTime() < deadline) {
            String messages = messages();
            // Refused while it deploys (CWWKZ0002E), or when it starts (CWWKZ0012I, not started).
            if (messages.contains("CWWKZ0002E") || messages.contains("CWWKZ0012I")) {
                return messages;
            }
            if (messages.contains("CWWKZ0001I")) {
                throw new IllegalStateException("the sample started, where its configuration should have been refused");
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("the server said nothing of the sample within 240 s; see " + server.resolve("logs"));
    }

    /** Stops the server; the resource adapter drains deliveries in work first. */
    void stop() throws IOException, InterruptedException {
        run("stop");
    }

    /**
     * Kills the server's JVM with {@code kill -9} (no shutdown hook, no drain: as a crash would) and
     * waits until it is gone. Linux only: the pid is the one {@code server start} wrote to
     * {@code usr/servers/.pid/defaultServer.pid} (the JVM itself, which the script started in the
     * background; it is no descendant of this test), checked against the JVM's command line so a
     * stale file can never kill another process.
     */
    void kill() throws IOException, InterruptedException {
        Path pidFile = wlp.resolve("usr/servers/.pid/defaultServer.pid");
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        ProcessHandle jvm = ProcessHandle.of(pid).orElseThrow(
                () -> new IllegalStateException("no process " + pid + " as " + pidFile + " says: is the server running?"));
        String command = jvm.info().commandLine().orElse("");
        if (!command.contains(wlp.toString()) || !command.contains("defaultServer")) {
            throw new IllegalStateException("process " + pid + " of " + pidFile + " is not this server's JVM: " + command);
        }
        Process kill = new ProcessBuilder("kill", "-9", String.valueOf(pid)).redirectErrorStream(true).start();
        String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -9 " + pid + " failed: " + out);
        }
        try {
            jvm.onExit().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the server's JVM " + pid + " still runs 30 s after kill -9", e);
        }
    }

    private void run(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(wlp.resolve("bin/server").toString(), args[0],
                "defaultServer"));
        command.addAll(List.of(args).subList(1, args.length));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0 && !(args[0].equals("stop") && out.contains("not running"))) {
            throw new IllegalStateException("server " + String.join(" ", args) + " failed: " + out);
        }
    }

    /** The server's messages.log, for assertions about what it logged. */
    String messages() throws IOException {
        Path log = server.resolve("logs/messages.log");
        return Files.exists(log) ? Files.readString(log) : "";
    }
}
