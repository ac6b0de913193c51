package dev.inbox.sample.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Open Liberty server that {@code mvn verify} created with the sample EAR, started and stopped
 * by the tests with its own scripts: once per database, and again to show a stop or a kill loses no job.
 */
final class LibertyServer {
    static final String BASE = "http://127.0.0.1:9080/sample/api";

    private final Path wlp = Path.of(System.getProperty("inbox.test.liberty.dir"));
    private final Path server = wlp.resolve("usr/servers/defaultServer");
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    Path outputDir() {
        return server;
    }

    /** Points the server at {@code db} (sqlite, postgres, mariadb) with these JVM system properties. */
    void configure(String db, List<String> systemProperties) throws IOException {
        Files.writeString(server.resolve("bootstrap.properties"), "inbox.db=" + db + "\n", StandardCharsets.UTF_8);
        Files.write(server.resolve("jvm.options"), systemProperties.stream().map(p -> "-D" + p).toList());
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
        long deadline = System.nanoTime() + Duration.ofSeconds(240).toNanos();
        String last = "nothing";
        while (System.nanoTime() < deadline) {
            try {
                // The first request initialises REST and JSON-B: on a loaded machine it outlasts 30 s, and
                // giving up on it only queues another behind it.
                HttpResponse<String> health = get("/health", Duration.ofSeconds(120));
                if (health.statusCode() == 200) {
                    return;
                }
                last = health.statusCode() + " " + health.body();
            } catch (IOException e) {
                last = e.toString(); // not listening yet
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("the sample did not answer within 240 s (last: " + last + "); see "
                + server.resolve("logs"));
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

    /**
     * Waits until {@code url} (another application of the server) answers 200; a first request may
     * outlast 30 s on a loaded machine, as the sample's does.
     */
    void awaitAnswer(String url) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(240).toNanos();
        String last = "nothing";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(120)).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() == 200) {
                    return;
                }
                last = answer.statusCode() + " " + answer.body();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException(url + " did not answer within 240 s (last: " + last + "); see "
                + server.resolve("logs"));
    }

    /** Posts an empty body to {@code url}; returns the status. */
    int postTo(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    /** The body of the sample's answer to {@code GET path}; for conditions awaited. */
    String body(String path) {
        try {
            return get(path).body();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return get(path, Duration.ofSeconds(30));
    }

    private HttpResponse<String> get(String path, Duration timeout) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(BASE + path)).timeout(timeout).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Posts a body of {@code bytes} bytes (a JSON string of that length), as a careless client might. */
    HttpResponse<String> postLarge(String path, int bytes) throws IOException, InterruptedException {
        return post(path, "\"" + "x".repeat(bytes - 2) + "\"");
    }

    HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(BASE + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The server's messages.log, for assertions about what it logged. */
    String messages() throws IOException {
        Path log = server.resolve("logs/messages.log");
        return Files.exists(log) ? Files.readString(log) : "";
    }
}
