package dev.inbox.engine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * One of the project's scripts under {@code scripts/}, which start and stop the servers the tests
 * need. A script that cannot run, or fails, throws with its output: nothing is skipped.
 */
final class ProjectScript {
    private final Path script;
    private final String name;

    private ProjectScript(Path script) {
        this.script = script;
        this.name = script.getFileName().toString();
    }

    /** The script the build names in {@code property}, else {@code ../scripts/<fallback>}. */
    static ProjectScript fromBuild(String property, String fallback) {
        String value = System.getProperty(property);
        Path script = value == null || value.isBlank() ? Path.of("../scripts", fallback) : Path.of(value);
        if (!Files.isExecutable(script)) {
            throw new IllegalStateException("the script " + script.toAbsolutePath() + " is missing or not executable");
        }
        return new ProjectScript(script);
    }

    /** Runs {@code command} and gives its output, which {@code echo} prints too. */
    String run(String command, boolean echo) {
        try {
            Process p = new ProcessBuilder(script.toString(), command).redirectErrorStream(true).start();
            // A first start may install the servers from the distribution's packages.
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException(name + " " + command + " did not end within 10 minutes");
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(name + " " + command + " failed (" + p.exitValue() + "): " + out);
            }
            if (echo) {
                System.out.print(out);
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException(name + " " + command + " could not run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + name + " " + command + " ran", e);
        }
    }
}
