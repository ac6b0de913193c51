package dev.inbox.sample;

import dev.inbox.Inbound;
import dev.inbox.Outcome;
import dev.inbox.cdi.Recurring;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A one-minute lease and a handler that runs longer: the keeper extends the lease while it draws.
 * A nightly report is published at 02:00 UTC by whichever server comes first, once.
 */
@ApplicationScoped
public class Reports {
    @Inject
    DataSource dataSource;

    @Inject
    @ConfigProperty(name = "sample.reports.render-time", defaultValue = "PT75S")
    Duration renderTime;

    /** Each night's report; {@code inbox.recurring.nightly-report.cron} moves it. */
    @Recurring(name = "nightly-report", cron = "0 0 2 * * *", queue = "reports")
    public Report nightly(Instant due) {
        return new Report("nightly " + due);
    }

    public Outcome render(@Inbound(queue = "reports", table = RenderReport.class, lease = "PT1M") Report report)
            throws Exception {
        Thread.sleep(renderTime.toMillis());
        Rows.insertCommitted(dataSource, "INSERT INTO reports_rendered (name) VALUES (?)", report.name());
        return Outcome.ack();
    }
}
