package dev.inbox.engine;

import dev.inbox.ClaimForm;
import dev.inbox.Subscription;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * A process that claims jobs and never finishes them, to be killed with {@code kill -9} mid-handler.
 * Arguments: JDBC URL, table, claim form, lease seconds, marker file (one line per delivery started).
 */
public final class CrashChild {
    private CrashChild() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        TestTable table = TestTable.of(args[1], ClaimForm.valueOf(args[2]), TestTable.Feature.ATTEMPT);
        Duration lease = Duration.ofSeconds(Long.parseLong(args[3]));
        Path marker = Path.of(args[4]);
        InboxBroker.fromUrl(url).lease(lease).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("crash", table.spec(), Job.class, (job, delivery) -> {
                    Files.writeString(marker, job.n() + " " + delivery.attempt() + "\n", StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                    Thread.sleep(Long.MAX_VALUE);
                    return null;
                }).workers(4))
                .connect();
        Thread.sleep(Long.MAX_VALUE);
    }
}
