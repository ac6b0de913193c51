package dev.inbox.internal.broker;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import dev.inbox.InboxException;
import dev.inbox.RecurringJob;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * A recurring job's cron expression in its zone: six fields, seconds first, as Spring writes them
 * (parsed by cron-utils). {@link #text} is what the schedule table keeps, so a server that starts
 * with another expression or zone sees the change.
 */
public final class CronSchedule {
    private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(
            CronType.SPRING53));

    private final RecurringJob<?> job;
    private final ExecutionTime times;

    private CronSchedule(RecurringJob<?> job, ExecutionTime times) {
        this.job = job;
        this.times = times;
    }

    /**
     * Checks {@code job}'s expression, as a broker would at connect (the CDI extension checks it at
     * deployment).
     *
     * @throws InboxException {@code DECLARATION} naming the job and what to write instead
     */
    public static void check(RecurringJob<?> job) {
        of(job);
    }

    /**
     * @throws InboxException {@code DECLARATION} naming the job and what to write instead
     */
    static CronSchedule of(RecurringJob<?> job) {
        ExecutionTime times;
        try {
            times = ExecutionTime.forCron(PARSER.parse(job.cron()).validate());
        } catch (IllegalArgumentException e) {
            throw new InboxException(InboxException.Kind.DECLARATION, "recurring job " + job.name()
                    + ": the cron expression \"" + job.cron() + "\" is not one Inbox reads (" + e.getMessage()
                    + "): write six fields, seconds first, such as \"0 */5 * * * *\" for every five minutes", e);
        }
        CronSchedule schedule = new CronSchedule(job, times);
        if (schedule.nextAfter(Instant.now()) == null) {
            throw new InboxException(InboxException.Kind.DECLARATION, "recurring job " + job.name()
                    + ": the cron expression \"" + job.cron() + "\" has no time to come: correct it");
        }
        return schedule;
    }

    /**
     * The first occurrence strictly after {@code time}; null when none comes. An occurrence whose
     * local time falls in a gap of the zone (the hour a spring-forward skips) runs at the gap's end,
     * as Quartz and Spring run it: cron-utils passes over it, and "02:30 every day" in
     * Europe/Paris skipped the day the clocks go forward. Repeated local times (the autumn hour)
     * stay as cron-utils reads them, once each.
     */
    Instant nextAfter(Instant time) {
        ZoneId zone = job.zone();
        Instant next = times.nextExecution(ZonedDateTime.ofInstant(time, zone)).map(ZonedDateTime::toInstant)
                .orElse(null);
        // The next occurrence on the zone's wall clock, read as if it had no transitions.
        LocalDateTime wall = LocalDateTime.ofInstant(time, zone);
        LocalDateTime local = times.nextExecution(wall.atZone(ZoneOffset.UTC)).map(ZonedDateTime::toLocalDateTime)
                .orElse(null);
        if (local == null || !zone.getRules().getValidOffsets(local).isEmpty()) {
            return next;
        }
        Instant gapEnd = zone.getRules().getTransition(local).getInstant();
        return gapEnd.isAfter(time) && (next == null || gapEnd.isBefore(next)) ? gapEnd : next;
    }

    /** The expression and zone as the schedule table keeps them. */
    String text() {
        return job.cron() + " " + job.zone().getId();
    }
}
