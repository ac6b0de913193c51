package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;

/** The JVM of a server a test started, known by the server's home (or domain) on its command line. */
final class ServerJvm {
    private ServerJvm() {
    }

    /**
     * Kills the JVM among the descendants of {@code ancestor} with {@code SIGKILL}, as a crash would
     * (no shutdown hook, no drain), and waits until it is gone. The server's home on the command line
     * tells it from any other Java process.
     */
    static void kill(ProcessHandle ancestor, String home) throws Exception {
        List<ProcessHandle> jvms = ancestor.descendants()
                .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false))
                .filter(p -> p.info().commandLine().map(c -> c.contains(home)).orElse(false)).toList();
        assertThat(jvms).as("the JVM of the server at " + home + " among the descendants of " + ancestor.pid())
                .hasSize(1);
        kill(jvms.get(0));
    }

    /**
     * Kills the JVM {@code pid} (a server's pid file names it) with {@code SIGKILL} and waits until it
     * is gone; only if its command line names {@code home}, so a stale pid file never kills another process.
     */
    static void kill(long pid, String home) throws Exception {
        ProcessHandle jvm = ProcessHandle.of(pid).orElseThrow(
                () -> new IllegalStateException("no process " + pid + ": is the server at " + home + " running?"));
        String command = jvm.info().commandLine().orElse("");
        if (!command.contains(home)) {
            throw new IllegalStateException("process " + pid + " is not the JVM of the server at " + home + ": "
                    + command);
        }
        kill(jvm);
    }

    private static void kill(ProcessHandle jvm) throws Exception {
        jvm.destroyForcibly(); // SIGKILL on Linux
        jvm.onExit().get(30, TimeUnit.SECONDS);
    }
}
