package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A process killed with {@code kill -9} in the middle of its handlers gives its rows back, each form
 * in its way: the lease form when the lease runs out, the row lock form when the dead connection's
 * transaction rolls back (undoing the attempt counted in it), the advisory form when its session
 * ends (SQLite's in-process locks end with the process).
 */
class CrashTest {
    private static final String TABLE = "crash_jobs";
    private static final int LEASE_SECONDS = 2;

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void rowsOfAKilledProcessComeBackAndAreHandledAgain(FormCase c) throws Exception {
        TestDatabase db = c.db();
        TestTable table = TestTable.of(TABLE, c.form(), TestTable.Feature.ATTEMPT);
        table.create(db);
        db.execute("INSERT INTO " + TABLE + " (payload) VALUES ('{\"n\":1}')",
                "INSERT INTO " + TABLE + " (payload) VALUES ('{\"n\":2}')");
        Path marker = Files.createTempFile("inbox-crash", ".txt");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), CrashChild.class.getName(), db.url(), TABLE,
                c.form().name(), String.valueOf(LEASE_SECONDS), marker.toString())
                .redirectErrorStream(true).redirectOutput(new File(marker + ".log")).start();
        try {
            Eventually.await(() -> lines(marker).size() == 2, Duration.ofSeconds(30),
                    () -> "the child started both handlers: " + lines(marker));
            int killed = new ProcessBuilder("kill", "-9", String.valueOf(child.pid())).start().waitFor();
            assertThat(killed).isZero();
            assertThat(child.waitFor()).isEqualTo(137); // 128 + SIGKILL
        } finally {
            child.destroyForcibly();
        }
        long killedAt = System.nanoTime();
        assertThat(lines(marker)).containsExactlyInAnyOrder("1 1", "2 1");

        Map<Integer, Integer> attempts = new ConcurrentHashMap<>();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("crash", table.spec(), Job.class, (job, d) -> {
                    attempts.merge(job.n(), d.attempt(), (x, y) -> -1);
                    return Outcome.ack();
                }))
                .connect();
        try {
            Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(30),
                    () -> "the rows came back: " + attempts);
        } finally {
            broker.shutdown();
        }
        // Lease and advisory claims count the attempt and commit; a row lock claim's count rolls back with it.
        int attempt = c.form() == dev.inbox.ClaimForm.ROW_LOCK ? 1 : 2;
        assertThat(attempts).containsExactlyInAnyOrderEntriesOf(Map.of(1, attempt, 2, attempt));
        if (c.form() == dev.inbox.ClaimForm.LEASE) {
            assertThat(Duration.ofNanos(System.nanoTime() - killedAt)).as("rows wait out the lease")
                    .isGreaterThan(Duration.ofMillis(500));
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
