package dev.inbox.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.RecurringJob;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A recurring job's occurrences across both changes of daylight saving time. */
class CronScheduleTest {
    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

    private static CronSchedule daily(String cron) {
        return CronSchedule.of(RecurringJob.of("dst", cron, "reports", String.class, due -> "x").zone(PARIS));
    }

    private static List<String> occurrences(CronSchedule schedule, String from, int count) {
        List<String> seen = new ArrayList<>();
        Instant time = ZonedDateTime.parse(from).toInstant();
        for (int i = 0; i < count; i++) {
            time = schedule.nextAfter(time);
            seen.add(time.atZone(PARIS).toOffsetDateTime().toString());
        }
        return seen;
    }

    /** Before, cron-utils went from 2027-03-27 02:30 to 2027-03-29 02:30. */
    @Test
    void anOccurrenceInTheSpringGapRunsAtTheGapsEnd() {
        assertThat(occurrences(daily("0 30 2 * * *"), "2027-03-26T12:00+01:00[Europe/Paris]", 4)).containsExactly(
                "2027-03-27T02:30+01:00", "2027-03-28T03:00+02:00", "2027-03-29T02:30+02:00", "2027-03-30T02:30+02:00");
    }

    @Test
    void severalOccurrencesInTheGapRunOnceAtItsEnd() {
        assertThat(occurrences(daily("0 */20 2 * * *"), "2027-03-28T01:50+01:00[Europe/Paris]", 4)).containsExactly(
                "2027-03-28T03:00+02:00", "2027-03-29T02:00+02:00", "2027-03-29T02:20+02:00", "2027-03-29T02:40+02:00");
    }

    @Test
    void anOccurrenceInTheRepeatedAutumnHourRunsOnce() {
        assertThat(occurrences(daily("0 30 2 * * *"), "2027-10-30T12:00+02:00[Europe/Paris]", 3)).containsExactly(
                "2027-10-31T02:30+02:00", "2027-11-01T02:30+01:00", "2027-11-02T02:30+01:00");
    }

    @Test
    void occurrencesAwayFromATransitionAreCronUtilsOwn() {
        assertThat(occurrences(daily("0 0 */6 * * *"), "2027-06-01T00:00+02:00[Europe/Paris]", 3)).containsExactly(
                "2027-06-01T06:00+02:00", "2027-06-01T12:00+02:00", "2027-06-01T18:00+02:00");
    }
}
