package dev.inbox.sample.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A GlassFish or Payara domain the build made (asadmin-domain.xml), driven by its own {@code asadmin}
 * as an operator drives it: started, the pool behind {@code jdbc/inbox} chosen, the domain's JVM
 * stopped, killed by its pid file. (The managed Arquillian containers of both servers start a domain
 * only at their first deployment, and leave a domain they did not start running, so a suite that
 * stops and starts the server again does both here.)
 *
 * @param home the installation (bin/asadmin)
 * @param domainDir its domain's directory
 * @param adminPort the domain's administration port
 */
record Asadmin(Path home, Path domainDir, int adminPort) {

    /** The domain of a test run: failsafe's properties, or null where the run's server is no GlassFish or Payara. */
    static Asadmin ofThisRun() {
        String port = System.getProperty("inbox.test.admin.port");
        return port == null ? null : new Asadmin(Path.of(System.getProperty("inbox.test.server.home")),
                Path.of(System.getProperty("inbox.test.server.data")), Integer.parseInt(port));
    }

    /**
     * Starts the domain ({@code start-domain} returns once it listens) with these system properties
     * (MicroProfile Config for the applications deployed after, kept in the domain's configuration).
     */
    void start(List<String> systemProperties) throws IOException, InterruptedException {
        exec(List.of(home.resolve("bin/asadmin").toString(), "start-domain", domainDir.getFileName().toString()),
                "start-domain");
        run("create-system-properties", String.join(":", systemProperties));
    }

    /** Stops the domain as an operator does ({@code stop-domain}): the adapter drains first. */
    void stop() throws IOException, InterruptedException {
        exec(stopDomain(), "stop-domain");
    }

    /** Stops the domain if it runs (a test that failed midway may leave it running); quiet where it does not. */
    void stopIfRunning() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(stopDomain()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0 && !out.contains("is not running")) {
            throw new IllegalStateException("asadmin stop-domain failed: " + out);
        }
    }

    private List<String> stopDomain() {
        return List.of(home.resolve("bin/asadmin").toString(), "stop-domain", domainDir.getFileName().toString());
    }

    /**
     * Binds {@code jdbc/inbox} to the domain's pool for {@code db} (inbox-sqlite, inbox-postgres or
     * inbox-mariadb, glassfish-config's); applications deployed after it use that database.
     */
    void useDatabase(String db) throws IOException, InterruptedException {
        run("set", "resources.jdbc-resource.jdbc/inbox.pool-name=inbox-" + db);
    }

    /**
     * Undeploys {@code application} where a run that failed midway left it deployed, and starts the
     * domain again without it: an application the domain loaded at its start is not deployed again
     * cleanly in the same JVM.
     */
    void undeployIfDeployed(String application, List<String> systemProperties) throws IOException, InterruptedException {
        if (run("list-applications").lines().anyMatch(line -> line.startsWith(application + " "))) {
            run("undeploy", application);
            stop();
            start(systemProperties);
        }
    }

    /** Runs {@code asadmin --port <admin> args} against the running domain; fails with its output. */
    String run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/asadmin").toString(), "--host", "127.0.0.1",
                "--port", String.valueOf(adminPort), "--interactive=false"));
        command.addAll(List.of(args));
        return exec(command, String.join(" ", args));
    }

    private static String exec(List<String> command, String what) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("asadmin " + what + " failed: " + out);
        }
        return out;
    }

    /**
     * Kills the domain's JVM with {@code SIGKILL}: the one its {@code config/pid} names (start-domain
     * leaves it running on its own, no descendant of the test), checked against its command line.
     */
    void kill() throws Exception {
        long pid = Long.parseLong(Files.readString(domainDir.resolve("config/pid")).trim());
        ServerJvm.kill(pid, domainDir.toString());
    }
}
