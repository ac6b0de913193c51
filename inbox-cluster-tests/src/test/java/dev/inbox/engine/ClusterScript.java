package dev.inbox.engine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One of the project's scripts that start, kill and stop a cluster of servers ({@code
 * scripts/pg-pair.sh}, {@code scripts/galera.sh}, {@code scripts/pgbouncer.sh}), as the build
 * names it. A script that cannot run, or fails, throws with its output: a cluster test fails,
 * never skips.
 */
final class ClusterScript {
    private final Path script;

    private ClusterScript(Path script) {
        this.script = script;
    }

    /** The script the build names in system property {@code property}, else {@code ../scripts/<name>}. */
    static ClusterScript fromBuild(String property, String name) {
        String named = System.getProperty(property);
        Path script = named == null || named.isBlank() ? Path.of("../scripts", name) : Path.of(named);
        if (!Files.isExecutable(script)) {
            throw new IllegalStateException("the cluster's script " + script.toAbsolutePath()
                    + " is missing or not executable");
        }
        return new ClusterScript(script);
    }

    /** Runs the script with {@code arguments}, prints its output and returns it. */
    String run(String... arguments) {
        return run(true, arguments);
    }

    /** Runs the script with {@code arguments} and returns its output unprinted (a URL asked for, say). */
    String read(String... arguments) {
        return run(false, arguments);
    }

    private String run(boolean echo, String... arguments) {
        List<String> command = new ArrayList<>(List.of(script.toString()));
        command.addAll(List.of(arguments));
        String what = script.getFileName() + " " + String.join(" ", arguments);
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            // A first start may install the servers from the distribution's packages.
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException(what + " did not end within 10 minutes");
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(what + " failed (" + p.exitValue() + "): " + out);
            }
            if (echo) {
                System.out.print(out);
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException(what + " could not run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + what + " ran", e);
        }
    }
}
