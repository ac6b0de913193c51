package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Open Liberty's {@code server stop} while the sample's 75 s report is in work, on SQLite as the
 * README runs it. Liberty deactivates the message-driven beans as its quiesce begins and stops the
 * applications only once the quiesce has waited up to 30 s for the Work in progress; the adapter
 * drains the application's handlers from the deactivation on, so the stop takes the drain timeout
 * and a few seconds, not the quiesce's 30 s and the drain's after them. The report is not lost: it
 * is rendered once the server runs again. No timer of the adapter fires into the stopped server
 * (Liberty's "execSvc is null").
 */
class StopWithAReportInWorkOnLibertyIT {
    /** The sample's drain timeout: the default. */
    private static final Duration DRAIN = Duration.ofSeconds(30);
    private static final Duration BOUND = DRAIN.plusSeconds(5);

    private final LibertyServer server = new LibertyServer();
    private final ItDatabase database = new ItDatabase("sqlite", server.outputDir());

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    @Test
    void aStopWithAReportInWorkTakesTheDrainTimeoutAndTheReportIsRenderedLater() throws Exception {
        startWithAReportInWork("report-in-work");
        Duration stop = timedStop("a report in work");
        assertThat(stop).as("the stop with a 75 s report in work").isLessThanOrEqualTo(BOUND);
        theReportIsKeptAndRenderedOnceTheServerRunsAgain("report-in-work");
    }

    private void startWithAReportInWork(String name) throws Exception {
        database.drop(ItDatabase.SAMPLE_TABLES);
        server.configure("sqlite", List.of());
        server.start();
        assertThat(server.api().post("/reports", "{\"name\": \"" + name + "\"}").statusCode()).isEqualTo(202);
        ItDatabase.await(() -> database.lockedUntil("report_jobs") != null, Duration.ofSeconds(30),
                "the report claimed");
    }

    private Duration timedStop(String what) throws Exception {
        long begin = System.nanoTime();
        server.stop();
        Duration stop = Duration.ofNanos(System.nanoTime() - begin);
        System.out.printf(Locale.ROOT, "StopWithAReportInWorkOnLibertyIT: stopped with %s in %.1f s%n", what,
                stop.toMillis() / 1000.0);
        return stop;
    }

    /** The report's row is still there, rendered once the server runs again (reports now take 1 s). */
    private void theReportIsKeptAndRenderedOnceTheServerRunsAgain(String name) throws Exception {
        String messages = server.messages();
        assertThat(messages).as("the server's log of the stop").contains("CWWKE0036I")
                .doesNotContain("execSvc is null").doesNotContain("an Inbox timed signal failed");
        assertThat(database.count("report_jobs")).as("the report's job kept").isEqualTo(1);
        assertThat(database.count("reports_rendered")).as("reports rendered").isZero();

        server.configure("sqlite", List.of("sample.reports.render-time=PT1S"));
        server.startAgain();
        ItDatabase.await(() -> server.api().body("/reports").contains(name) && database.count("report_jobs") == 0,
                Duration.ofSeconds(120), "the report rendered after the restart");
        assertThat(database.count("reports_rendered")).as("rendered once").isEqualTo(1);
    }
}
