package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.BrokerHealth;
import dev.inbox.InboxException;
import dev.inbox.QueueHealth;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the MicroProfile Health checks say of a queue that is down: DOWN, and what is wrong (its
 * table, the database's error text) only where {@code inbox.health.details=true}.
 */
class InboxHealthTest {
    private static final String PROBLEM = "queue refunds: claiming from table refund_jobs has failed 6 times over 3 s:"
            + " (conn=12) Table 'test.refund_jobs' doesn't exist";
    private static final BrokerHealth DOWN = new BrokerHealth(true, List.of(
            new QueueHealth("refunds", false, true, false, PROBLEM), new QueueHealth("receipts", true, true, true, "")),
            "the LISTEN connection to 10.0.0.7:5432 is lost: Connection refused");

    /** Before, anyone who could reach /health/ready read the table's name and the database's error. */
    @Test
    void withoutDetailsADownQueueIsDownAndNoMore() {
        Map<String, String> data = InboxHealth.data(DOWN, QueueHealth::ready, false);
        assertThat(data).containsEntry("queue refunds", InboxHealth.HIDDEN)
                .containsEntry("queue receipts", "UP, paused by an operator: claims wait until it is resumed")
                .containsEntry("listener", InboxHealth.HIDDEN);
        assertThat(data.toString()).doesNotContain("refund_jobs", "conn=", "10.0.0.7");
    }

    @Test
    void withDetailsADownQueueSaysWhatIsWrong() {
        assertThat(InboxHealth.data(DOWN, QueueHealth::ready, true)).containsEntry("queue refunds", PROBLEM)
                .containsEntry("listener", DOWN.listener());
    }

    @Test
    void theDetailsSettingIsTrueOrFalseAndNothingElse() {
        assertThat(InboxExtension.flag(new MapConfig(Map.of()), ConfigKeys.HEALTH_DETAILS)).isFalse();
        assertThat(InboxExtension.flag(new MapConfig(Map.of(ConfigKeys.HEALTH_DETAILS, " TRUE")),
                ConfigKeys.HEALTH_DETAILS)).isTrue();
        assertThatThrownBy(() -> InboxExtension.flag(new MapConfig(Map.of(ConfigKeys.HEALTH_DETAILS, "yes")),
                ConfigKeys.HEALTH_DETAILS)).isInstanceOf(InboxException.class)
                .hasMessageContaining("inbox.health.details = 'yes' is neither true nor false");
    }
}
