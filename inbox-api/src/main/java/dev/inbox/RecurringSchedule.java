package dev.inbox;

import java.time.Instant;

/**
 * A recurring job declared by the application, as the schedule table every server shares holds it.
 *
 * @param name       its name, the schedule table's key
 * @param queue      the queue its occurrences go into
 * @param cron       its cron expression and zone as the table holds them ({@code "0 0 2 * * * Europe/Paris"}),
 *                   the declaring server's that wrote last
 * @param nextDue    its next occurrence, null where no server has written its row yet
 * @param disabledAt when an operator disabled it on every server, null while it runs
 * @param runsHere   false where this server's configuration disabled it here
 */
public record RecurringSchedule(String name, String queue, String cron, Instant nextDue, Instant disabledAt,
        boolean runsHere) {

    /** Whether its occurrences are published: not disabled by an operator. */
    public boolean enabled() {
        return disabledAt == null;
    }
}
