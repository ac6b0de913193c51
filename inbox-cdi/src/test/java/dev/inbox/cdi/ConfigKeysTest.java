package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Keys under {@code inbox.} that Inbox does not read are named, with the closest key it does. */
class ConfigKeysTest {

    @Test
    void aMisspeltOptionAnUnknownQueueAndAnUnknownKeyEachGetOneWarningNamingTheClosestKey() {
        List<String> warnings = ConfigKeys.unknown(List.of("inbox.queue.refunds.wrokers", "inbox.queue.refundz.workers",
                "inbox.bogus-option", "inbox.queue.refunds.workers", "inbox.lease", "inbox.datasource", "inbox.db",
                "other.key", "sample.reports.render-time", "inbox.recurring.nightly-report.cron",
                "inbox.recurring.nightly-report.zone", "inbox.recurring.nightly-reprot.enabled"),
                Set.of("refunds", "thumbnails"), Set.of("nightly-report"));
        assertThat(warnings).hasSize(4);
        assertThat(warnings.get(0)).contains("inbox.queue.refunds.wrokers", "did you mean inbox.queue.refunds.workers?");
        assertThat(warnings.get(1)).contains("inbox.queue.refundz.workers", "did you mean inbox.queue.refunds.workers?",
                "queues [");
        assertThat(warnings.get(2)).startsWith("MicroProfile Config key inbox.bogus-option is not an Inbox setting");
        assertThat(warnings.get(3)).contains("inbox.recurring.nightly-reprot.enabled",
                "did you mean inbox.recurring.nightly-report.enabled?", "recurring jobs are [nightly-report]");
    }

    @Test
    void theDistanceCountsEditsOfOneCharacter() {
        assertThat(ConfigKeys.distance("wrokers", "workers")).isEqualTo(2);
        assertThat(ConfigKeys.distance("lease", "lease")).isZero();
        assertThat(ConfigKeys.distance("", "abc")).isEqualTo(3);
    }
}
