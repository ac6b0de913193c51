package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxException;
import dev.inbox.RecurringJob;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Recurring methods are checked at deployment, and MicroProfile Config overrides their jobs by name. */
class RecurringMethodTest {

    public record Report(String name) {}

    public static class Jobs {
        @Recurring(name = "nightly", cron = "0 0 2 * * *", zone = "Europe/Paris", queue = "reports")
        public Report nightly(Instant due) {
            return new Report("nightly " + due);
        }

        @Recurring(name = "hourly", cron = "0 0 * * * *", queue = "reports")
        public Report hourly() {
            return new Report("hourly");
        }

        @Recurring(name = "nothing", cron = "0 0 * * * *", queue = "reports")
        public void returnsNothing() {}

        @Recurring(name = "takes", cron = "0 0 * * * *", queue = "reports")
        public Report takesAString(String what) {
            return new Report(what);
        }

        @Recurring(name = "zoned", cron = "0 0 * * * *", zone = "Mars/Olympus", queue = "reports")
        public Report badZone() {
            return new Report("z");
        }

        @Recurring(name = "two words", cron = "0 0 * * * *", queue = "reports")
        public Report badName() {
            return new Report("n");
        }

        @Recurring(name = "five", cron = "0 2 * * *", queue = "reports")
        public Report fiveFields() {
            return new Report("f");
        }

        @Recurring(name = "hidden", cron = "0 0 * * * *", queue = "reports")
        Report notPublic() {
            return new Report("h");
        }
    }

    private static RecurringMethod method(String name) {
        return RecurringMethod.of(null, ReflectedMethod.of(Jobs.class, name));
    }

    @Test
    void theAnnotationMakesTheJobAndTheConfigurationOverridesIt() {
        RecurringMethod nightly = method("nightly");
        assertThat(nightly.arguments(Instant.EPOCH)).containsExactly(Instant.EPOCH);
        assertThat(method("hourly").arguments(Instant.EPOCH)).isEmpty();
        RecurringJob<?> declared = nightly.job(new MapConfig(Map.of()), due -> new Report("x"));
        assertThat(declared.name()).isEqualTo("nightly");
        assertThat(declared.cron()).isEqualTo("0 0 2 * * *");
        assertThat(declared.zone()).isEqualTo(ZoneId.of("Europe/Paris"));
        assertThat(declared.queue()).isEqualTo("reports");
        assertThat(declared.payloadType()).isEqualTo(Report.class);
        assertThat(declared.enabled()).isTrue();

        RecurringJob<?> configured = nightly.job(new MapConfig(Map.of("inbox.recurring.nightly.cron", "0 30 3 * * *",
                "inbox.recurring.nightly.zone", "UTC", "inbox.recurring.nightly.enabled", "false")), due -> null);
        assertThat(configured.cron()).isEqualTo("0 30 3 * * *");
        assertThat(configured.zone()).isEqualTo(ZoneId.of("UTC"));
        assertThat(configured.enabled()).isFalse();
    }

    @Test
    void aDeclarationOrAValueThatCannotWorkFailsNamingWhatToChange() {
        assertProblem(() -> method("returnsNothing"), "returnsNothing returns nothing");
        assertProblem(() -> method("takesAString"), "takesAString takes 1 parameter(s)");
        assertProblem(() -> method("badZone"), "Mars/Olympus", "which is not a zone");
        assertProblem(() -> method("badName"), "is named \"two words\"");
        assertProblem(() -> method("notPublic"), "is not a public instance method");
        assertProblem(() -> method("fiveFields").job(new MapConfig(Map.of()), due -> null),
                "recurring job five: the cron expression \"0 2 * * *\"", "six fields, seconds first");
        assertProblem(() -> method("hourly").job(new MapConfig(Map.of("inbox.recurring.hourly.cron", "every hour")),
                due -> null), "recurring job hourly: the cron expression \"every hour\"");
        assertProblem(() -> method("hourly").job(new MapConfig(Map.of("inbox.recurring.hourly.enabled", "yes")),
                due -> null), "inbox.recurring.hourly.enabled = yes is neither true nor false");
    }

    private static void assertProblem(Runnable declaration, String... message) {
        assertThatThrownBy(declaration::run).isInstanceOfSatisfying(InboxException.class,
                e -> assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION))
                .hasMessageContainingAll(message);
    }
}
