package dev.inbox.cdi;

import dev.inbox.Cancellation;
import dev.inbox.DeadLetter;
import dev.inbox.DeadLetterFilter;
import dev.inbox.InboxAdmin;
import dev.inbox.JobPage;
import dev.inbox.JobQuery;
import dev.inbox.QueueStats;
import dev.inbox.QueuedJob;
import dev.inbox.RecurringSchedule;
import dev.inbox.RunNow;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The application's {@link InboxAdmin}: {@code @Inject InboxAdmin admin}. Its queues are those its
 * handlers take and its publishers write; its writes go through the application's JTA data source,
 * so inside a transaction of the application they join it.
 */
@ApplicationScoped
public class ApplicationAdmin implements InboxAdmin {

    @Inject
    InboxStartup startup;

    @Override
    public Map<String, QueueStats> stats() {
        return startup.broker().stats();
    }

    @Override
    public void pause(String queue) {
        startup.broker().pause(queue);
    }

    @Override
    public void resume(String queue) {
        startup.broker().resume(queue);
    }

    @Override
    public Set<String> paused() {
        return startup.broker().paused();
    }

    @Override
    public Cancellation cancel(String queue, Object id) {
        return startup.broker().cancel(queue, id);
    }

    @Override
    public JobPage jobs(String queue, JobQuery query) {
        return startup.broker().jobs(queue, query);
    }

    @Override
    public Optional<QueuedJob> job(String queue, Object id, int characters) {
        return startup.broker().job(queue, id, characters);
    }

    @Override
    public RunNow runNow(String queue, Object id) {
        return startup.broker().runNow(queue, id);
    }

    @Override
    public List<RecurringSchedule> recurringJobs() {
        return startup.broker().recurringJobs();
    }

    @Override
    public void disableRecurring(String name) {
        startup.broker().disableRecurring(name);
    }

    @Override
    public void enableRecurring(String name) {
        startup.broker().enableRecurring(name);
    }

    @Override
    public void triggerRecurring(String name) {
        startup.broker().triggerRecurring(name);
    }

    @Override
    public List<DeadLetter> deadLetters(String queue, int limit) {
        return startup.broker().deadLetters(queue, limit);
    }

    @Override
    public DeadLetter deadLetter(String queue, Object id, int characters) {
        return startup.broker().deadLetter(queue, id, characters);
    }

    @Override
    public void retryDeadLetter(String queue, Object id) {
        startup.broker().retryDeadLetter(queue, id);
    }

    @Override
    public int retryDeadLetters(String queue, DeadLetterFilter filter) {
        return startup.broker().retryDeadLetters(queue, filter);
    }

    @Override
    public int deleteDeadLetters(String queue, DeadLetterFilter filter) {
        return startup.broker().deleteDeadLetters(queue, filter);
    }

    @Override
    public void deleteDeadLetter(String queue, Object id) {
        startup.broker().deleteDeadLetter(queue, id);
    }
}
