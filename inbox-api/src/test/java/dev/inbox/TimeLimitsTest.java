package dev.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Delays and times no database could store are refused where they are given, naming the range. */
class TimeLimitsTest {

    @Test
    void aRetryDelayOfMoreThanAHundredYearsIsRefusedAtTheCall() {
        assertThatThrownBy(() -> Outcome.retry(Duration.ofSeconds(Long.MAX_VALUE / 2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a retry delay is from zero to 36500 days");
        assertThatThrownBy(() -> Outcome.retry(Duration.ofSeconds(-1))).hasMessageContaining("from zero");
        assertThat(Outcome.retry(Duration.ofDays(36_500)).delay()).isEqualTo(Duration.ofDays(36_500));
    }

    @Test
    void publishDelaysTimesAndUniquePeriodsOutsideTheirRangeAreRefused() {
        assertThatThrownBy(() -> PublishOptions.NONE.delay(Duration.ofDays(36_501)))
                .hasMessageContaining("a publish delay is from zero to 36500 days");
        assertThatThrownBy(() -> PublishOptions.NONE.at(Instant.MAX))
                .hasMessageContaining("a publish time lies from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z");
        assertThatThrownBy(() -> PublishOptions.NONE.at(Instant.MIN)).hasMessageContaining("9999-12-31T23:59:59Z");
        assertThatThrownBy(() -> PublishOptions.NONE.uniqueKey("digest", Duration.ofDays(40_000)))
                .hasMessageContaining("from a millisecond to 36500 days");
        assertThat(PublishOptions.NONE.at(Instant.parse("2030-01-01T00:00:00Z"))).isNotNull();
    }
}
