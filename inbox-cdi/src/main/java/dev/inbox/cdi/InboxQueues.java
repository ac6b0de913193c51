package dev.inbox.cdi;

import dev.inbox.QueueStats;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;

/** What the application's queues hold, for monitoring: {@code @Inject InboxQueues queues; queues.stats()}. */
@ApplicationScoped
public class InboxQueues {

    @Inject
    InboxStartup startup;

    /** Ready, in-work and dead rows of every queue the application handles or publishes to, by name. */
    public Map<String, QueueStats> stats() {
        return startup.broker().stats();
    }
}
