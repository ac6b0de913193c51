package dev.inbox.sample.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The WildFly that {@code mvn verify} unpacked and configured (wildfly-config's standalone-&lt;db&gt;.xml),
 * run by its own script with the sample EAR in its deployments folder, as an operator runs it: for
 * what one Arquillian run cannot hold, a WildFly beside an Open Liberty on one database.
 */
final class WildFlyServer {
    static final String BASE = "http://127.0.0.1:8080/sample/api";
    private static final String EAR = "sample-app.ear";

    private final Path home = Path.of(System.getProperty("inbox.test.wildfly.home"));
    private final Path deployments = home.resolve("standalone/deployments");
    private final SampleApi api = new SampleApi(BASE);
    private Process process;

    SampleApi api() {
        return api;
    }

    /** Starts the server on {@code db}'s configuration with these system properties; waits until the sample answers. */
    void start(String db, List<String> systemProperties) throws IOException, InterruptedException {
        Files.copy(Path.of(System.getProperty("inbox.test.sample.ear")), deployments.resolve(EAR),
                StandardCopyOption.REPLACE_EXISTING);
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/standalone.sh").toString(), "-c",
                "standalone-" + db + ".xml"));
        SampleSettings.with(systemProperties).forEach(p -> command.add("-D" + p));
        Path console = home.resolve("standalone/log/console-" + db + ".log");
        Files.createDirectories(console.getParent());
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(console.toFile()).start();
        try {
            api.awaitSample();
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + "; see " + console, e);
        }
    }

    /** Kills the server's JVM with {@code SIGKILL}, as a crash would. */
    void kill() throws Exception {
        ServerJvm.kill(process.toHandle(), home.toString());
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Shuts the server down if it runs (the adapter drains first), and takes the EAR out of its deployments. */
    void stop() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            Process cli = new ProcessBuilder(home.resolve("bin/jboss-cli.sh").toString(), "-c", "--command=:shutdown")
                    .redirectErrorStream(true).start();
            String out = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (cli.waitFor() != 0 || !process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("WildFly did not shut down: " + out);
            }
        }
        process = null;
        // The EAR and the scanner's markers (sample-app.ear.deployed, .failed, ...): the Arquillian
        // runs deploy the sample themselves on the same configurations.
        try (DirectoryStream<Path> left = Files.newDirectoryStream(deployments, EAR + "*")) {
            for (Path file : left) {
                Files.delete(file);
            }
        }
    }
}
