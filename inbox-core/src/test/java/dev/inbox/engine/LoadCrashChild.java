package dev.inbox.engine;

import dev.inbox.ClaimForm;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.Subscription;
import java.io.FileWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A process draining a queue under load, to be killed with {@code kill -9} in the middle.
 * Arguments: JDBC URL, claim form, marker file, mode: {@code jobs} (a line per job handled, before
 * its ack) or {@code refunds} (the transactional refunds handler, a line per refund handled).
 */
public final class LoadCrashChild {
    private LoadCrashChild() {}

    static final InboxSpec RECEIPTS = InboxSpec.table("crash_receipt_jobs", Column.of("id").generated())
            .lease(Column.of("locked_until")).payload(Column.of("payload"));

    public static void main(String[] args) throws Exception {
        String url = args[0];
        ClaimForm form = ClaimForm.valueOf(args[1]);
        Writer marker = new FileWriter(args[2], StandardCharsets.UTF_8, true);
        boolean refunds = args[3].equals("refunds");
        TestTable table = TestTable.of("crash_load_jobs", form, TestTable.Feature.ATTEMPT);
        InboxBroker broker = InboxBroker.fromUrl(url).lease(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50));
        if (refunds) {
            broker.route("crash_receipts", RECEIPTS);
            broker.subscribe(Subscription.of("crash_load", table.spec(), Job.class,
                    (job, d) -> {
                        var outcome = LoadCrashTest.refund(broker, job, d);
                        synchronized (marker) {
                            marker.write(job.n() + "\n");
                            marker.flush();
                        }
                        return outcome;
                    }).workers(4).transactional(true));
        } else {
            broker.subscribe(Subscription.of("crash_load", table.spec(), Job.class, (job, d) -> {
                Thread.sleep(1);
                synchronized (marker) {
                    marker.write(job.n() + "\n");
                    marker.flush();
                }
                return null;
            }).workers(4));
        }
        broker.connect();
        Thread.sleep(Long.MAX_VALUE);
    }
}
