package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;

/** The JVM of a server a test started, among the descendants of a process, known by the server's home. */
final class ServerJvm {
    private ServerJvm() {
    }

    /**
     * Kills the JVM with {@code SIGKILL}, as a crash would (no shutdown hook, no drain), and waits
     * until it is gone. The server's home on the command line tells it from any other Java process.
     */
    static void kill(ProcessHandle ancestor, String home) throws Exception {
        List<ProcessHandle> jvms = ancestor.descendants()
                .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false))
                .filter(p -> p.info().commandLine().map(c -> c.contains(home)).orElse(false)).toList();
        assertThat(jvms).as("the JVM of the server at " + home + " among the descendants of " + ancestor.pid())
                .hasSize(1);
        ProcessHandle jvm = jvms.get(0);
        jvm.destroyForcibly(); // SIGKILL on Linux
        jvm.onExit().get(30, TimeUnit.SECONDS);
    }
}
