package dev.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void readsIsoAndShortForms() {
        assertThat(Durations.parse("PT1M")).isEqualTo(Duration.ofMinutes(1));
        assertThat(Durations.parse("pt30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse(" 5m ")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Durations.parse("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
    }

    @Test
    void refusesOtherTextNamingTheFormsAccepted() {
        assertThatThrownBy(() -> Durations.parse("soon")).hasMessageContaining("'soon'").hasMessageContaining("PT30S");
        assertThatThrownBy(() -> Durations.parse("-5s")).hasMessageContaining("'-5s'");
    }

    @Test
    void optionsParseConfiguredTextAndNameTheKey() {
        assertThat(SubscriptionOption.LEASE.parse("inbox.queue.reports.lease", "PT1M")).isEqualTo(Duration.ofMinutes(1));
        assertThat(SubscriptionOption.WORKERS.parse("inbox.queue.reports.workers", "8")).isEqualTo(8);
        assertThatThrownBy(() -> SubscriptionOption.WORKERS.parse("inbox.queue.reports.workers", "many"))
                .hasMessageContaining("inbox.queue.reports.workers").hasMessageContaining("'many'");
        assertThatThrownBy(() -> SubscriptionOption.ENABLED.parse("inbox.queue.reports.enabled", "yes"))
                .hasMessageContaining("true or false");
        assertThatThrownBy(() -> SubscriptionOption.LEASE.parse("inbox.lease", "PT48H"))
                .hasMessageContaining("inbox.lease").hasMessageContaining("PT24H");
    }
}
