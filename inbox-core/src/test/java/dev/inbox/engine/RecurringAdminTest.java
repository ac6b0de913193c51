package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxException;
import dev.inbox.RecurringJob;
import dev.inbox.RecurringSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An operator's recurring jobs, on two servers sharing a database: listed with their next
 * occurrence, triggered beside their schedule, disabled on one server and so on both, enabled on
 * the other from the next occurrence after now (the missed ones not published).
 */
class RecurringAdminTest {
    private static final String TABLE = "recurring_admin_jobs";
    private static final String SCHEDULE = "recurring_admin_schedule";

    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();
    private final SettableClock clock = new SettableClock("2026-11-30T12:00:00.500Z");

    @AfterEach
    void stop() {
        brokers.forEach(InboxBroker::shutdown);
    }

    private static void createTables(TestDatabase db, boolean disabling) {
        db.createLeaseTable(TABLE);
        RecurringJobsTest.createSchedule(db, SCHEDULE, disabling);
    }

    private InboxBroker server(TestDatabase db) {
        InboxBroker broker = InboxBroker.fromDataSource(db.dataSource()).pollInterval(Duration.ofMillis(100))
                .clock(clock).scheduleTable(SCHEDULE).route("ticks", Job.leaseTable(TABLE))
                .recurring(RecurringJob.of("report", "0 * * * * *", "ticks", Job.class,
                        due -> new Job((int) due.getEpochSecond())))
                .connect();
        brokers.add(broker);
        return broker;
    }

    private static List<Instant> published(TestDatabase db) throws Exception {
        return RecurringJobsTest.published(db, TABLE);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void listedTriggeredDisabledEverywhereAndEnabledFromTheNextOccurrence(TestDatabase db) throws Exception {
        createTables(db, true);
        InboxBroker a = server(db);
        InboxBroker b = server(db);
        Instant first = Instant.parse("2026-11-30T12:01:00Z");
        assertThat(a.recurringJobs()).containsExactly(
                new RecurringSchedule("report", "ticks", "0 * * * * * UTC", first, null, true));

        a.triggerRecurring("report");
        assertThat(published(db)).as("one occurrence, due now").containsExactly(Instant.parse("2026-11-30T12:00:00Z"));
        assertThat(b.recurringJobs().get(0).nextDue()).as("the schedule as it was").isEqualTo(first);

        a.disableRecurring("report");
        RecurringSchedule disabled = b.recurringJobs().get(0);
        assertThat(disabled.enabled()).as("disabled on every server").isFalse();
        assertThat(disabled.disabledAt()).isBetween(Instant.parse("2026-11-30T12:00:00Z"),
                Instant.parse("2026-11-30T12:00:01Z"));
        clock.set("2026-11-30T12:05:00.500Z");
        Thread.sleep(1_000); // ten polls of both servers: due, and disabled
        assertThat(published(db)).as("nothing published while disabled").hasSize(1);

        b.enableRecurring("report");
        Instant next = Instant.parse("2026-11-30T12:06:00Z");
        assertThat(a.recurringJobs()).containsExactly(
                new RecurringSchedule("report", "ticks", "0 * * * * * UTC", next, null, true));
        Thread.sleep(500);
        assertThat(published(db)).as("the occurrences missed while disabled are not published").hasSize(1);
        clock.set("2026-11-30T12:06:00.500Z");
        Eventually.await(() -> db.count(TABLE) == 2, Duration.ofSeconds(10), () -> "12:06 published");
        Thread.sleep(500);
        assertThat(published(db)).as("once, by one of the servers").containsExactly(
                Instant.parse("2026-11-30T12:00:00Z"), next);

        assertThatThrownBy(() -> a.triggerRecurring("nightly")).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(InboxException.Kind.NOT_FOUND);
            assertThat(e.getMessage()).contains("nightly", "[report]");
        });
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"SQLITE", "POSTGRES", "MARIADB"})
    void aScheduleTableWithoutDisabledAtRunsButCannotDisable(TestDatabase db) throws Exception {
        createTables(db, false);
        InboxBroker a = server(db);
        assertThatThrownBy(() -> a.disableRecurring("report")).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(InboxException.Kind.SCHEMA);
            assertThat(e.getMessage()).contains(SCHEDULE, "ALTER TABLE " + SCHEDULE + " ADD disabled_at");
        });
        assertThat(a.recurringJobs().get(0).enabled()).isTrue();
        clock.set("2026-11-30T12:01:00.500Z");
        Eventually.await(() -> db.count(TABLE) == 1, Duration.ofSeconds(10), () -> "12:01 published");
    }
}
