package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.DeadLetter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The console's HTML: what a payload or an error says is shown, never run; the sparkline scales to
 * its busiest minute.
 */
class ConsolePagesTest {

    /** Before, fifty dead letters of 2 MB made a page of 100 MB. */
    @Test
    void aLongPayloadIsShownByItsHeadAndItsLength() {
        String payload = "{\"blob\":\"" + "<".repeat(2_000_000) + "\"}";
        DeadLetter big = new DeadLetter(1L, payload, "{\"h\":\"" + "x".repeat(5000) + "\"}", 3, "too big",
                Instant.parse("2026-11-30T12:00:00Z"));
        ConsoleServlet.QueueRow row = new ConsoleServlet.QueueRow("refunds", 0, 0, 0, 50, null, false, "UP",
                new long[Throughput.MINUTES]);
        String page = ConsolePages.queue("/app/inbox", "refunds", row, java.util.Collections.nCopies(50, big), "t");
        assertThat(page.length()).as("fifty previews, not fifty payloads").isLessThan(1_000_000);
        assertThat(page).contains("2,000,011 characters in all", "5,008 characters in all", "{&quot;blob&quot;:&quot;&lt;&lt;")
                .doesNotContain("<<");
    }

    @Test
    void deadLettersAreEscapedWhateverTheyHold() {
        DeadLetter hostile = new DeadLetter("7\"><script>alert(1)</script>",
                "{\"name\":\"<img src=x onerror=alert(2)>\"}", "{\"tenant\":\"'&'\"}", 3, "<b>boom</b>",
                Instant.parse("2026-11-30T12:00:00Z"));
        ConsoleServlet.QueueRow row = new ConsoleServlet.QueueRow("refunds", 1, 0, 0, 1, 5L, false, "UP",
                new long[Throughput.MINUTES]);
        String page = ConsolePages.queue("/app/inbox", "refunds", row, List.of(hostile), "token\"x");
        assertThat(page).doesNotContain("<script>", "<img", "<b>boom", "token\"x");
        assertThat(page).contains("&lt;script&gt;", "&lt;img src=x onerror=alert(2)&gt;", "&lt;b&gt;boom&lt;/b&gt;",
                "&#39;&amp;&#39;", "token&quot;x");
        assertThat(page).contains("action=\"/app/inbox/queues/refunds/dead-letters/7%22%3E%3Cscript%3Ealert%281%29"
                + "%3C%2Fscript%3E/retry\"");
    }

    @Test
    void theOverviewSaysEachQueuesStateAndTheSparklineItsTotal() {
        long[] minutes = new long[Throughput.MINUTES];
        minutes[58] = 10;
        minutes[59] = 5;
        Map<String, ConsoleServlet.QueueRow> rows = Map.of(
                "refunds", new ConsoleServlet.QueueRow("refunds", 3, 1, 2, 0, 4L, true, "UP", minutes));
        String page = ConsolePages.overview("/app/inbox", rows, "t");
        assertThat(page).contains("data-field=\"ready\">3<", "data-field=\"in-work\">1<",
                "data-field=\"scheduled\">2<", "data-field=\"oldest\">4 s<", "class=\"paused\">paused",
                "<title>15 deliveries in the last hour</title>", "/queues/refunds/resume");
        assertThat(ConsolePages.sparkline(minutes)).contains("118.0,1.0 120.0,12.0", "0.0,23.0");
    }
}
