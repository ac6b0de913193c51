package dev.inbox;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An operator's view of the queues, for application code: what they hold, pauses, cancelling a
 * job, and the dead letters. In a Jakarta EE application {@code @Inject InboxAdmin admin} gives the
 * application's own queues; on plain Java the engine's broker is one. Every write called inside
 * the caller's transaction (a JTA transaction, where the broker works through the server's data
 * source) joins it, and commits or rolls back with the caller's own writes; called outside one, it
 * commits by itself.
 */
public interface InboxAdmin {

    /** What each queue holds now (ready, in work, scheduled, dead), by queue name. */
    Map<String, QueueStats> stats();

    /**
     * Stops claims of {@code queue} on every server sharing the pause table, within one poll
     * interval; deliveries in work finish.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue the application does not know,
     *                        {@code SCHEMA} where the pause table is missing
     */
    void pause(String queue);

    /** Starts claims of a paused {@code queue} again; as {@link #pause} fails. */
    void resume(String queue);

    /** The queues paused now (empty without the pause table). */
    Set<String> paused();

    /**
     * Cancels job {@code id} of {@code queue}: a job waiting (due or delayed) is deleted and no
     * handler takes it; a job in work is left to its handler. Inside the caller's transaction the
     * lease and row lock forms hold the row until it commits; the advisory form's lock is a
     * session's, given back as the cancel returns, so a claim between then and the commit may
     * still deliver the job (its ack then finds the row gone).
     *
     * @throws InboxException {@code NOT_FOUND} for a queue the application does not know,
     *                        {@code DECLARATION} for an id the table's ids cannot be
     */
    Cancellation cancel(String queue, Object id);

    /**
     * One page of {@code queue}'s unfinished jobs that {@code query} selects, in the order of their
     * ids, each with the head of its payload ({@link DeadLetter#PREVIEW} characters).
     *
     * @throws InboxException {@code NOT_FOUND} for a queue the application does not know,
     *                        {@code DECLARATION} for a filter the table cannot answer (failing jobs
     *                        without a {@link LastError} column, jobs in work outside the lease form)
     */
    JobPage jobs(String queue, JobQuery query);

    /**
     * Job {@code id} of {@code queue} with at most {@code characters} of its payload; empty where
     * there is no such unfinished job (never published, handled already, dead-lettered, cancelled).
     *
     * @throws InboxException {@code NOT_FOUND} for a queue the application does not know,
     *                        {@code DECLARATION} for an id the table's ids cannot be
     */
    Optional<QueuedJob> job(String queue, Object id, int characters);

    /**
     * Makes scheduled job {@code id} of {@code queue} due now: its delay, due time or retry
     * back-off is cut short, and the queue is woken. A job in work is left to its handler. Inside
     * the caller's transaction it takes effect when that commits.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue the application does not know,
     *                        {@code DECLARATION} for an id the table's ids cannot be
     */
    RunNow runNow(String queue, Object id);

    /** The application's recurring jobs, with their next occurrence as the schedule table holds it. */
    List<RecurringSchedule> recurringJobs();

    /**
     * Stops publishing recurring job {@code name} on every server sharing the schedule table,
     * within one poll interval, until {@link #enableRecurring}.
     *
     * @throws InboxException {@code NOT_FOUND} for a job the application does not declare,
     *                        {@code SCHEMA} where the schedule table has no {@code disabled_at} column
     */
    void disableRecurring(String name);

    /**
     * Publishes recurring job {@code name} again from its next occurrence after now: the ones it
     * missed while disabled are not published. As {@link #disableRecurring} fails.
     */
    void enableRecurring(String name);

    /**
     * Publishes one occurrence of recurring job {@code name} now, due now, beside its schedule
     * (which stays as it was), in the caller's transaction where there is one.
     *
     * @throws InboxException {@code NOT_FOUND} for a job the application does not declare
     */
    void triggerRecurring(String name);

    /**
     * The dead letters of {@code queue}, newest first, at most {@code limit}, each with the head of
     * its payload ({@link DeadLetter#PREVIEW} characters) and its whole length.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue without a dead-letter table here
     */
    List<DeadLetter> deadLetters(String queue, int limit);

    /**
     * Dead letter {@code id} of {@code queue} with at most {@code characters} of its payload.
     *
     * @throws InboxException {@code NOT_FOUND} where there is no such letter
     */
    DeadLetter deadLetter(String queue, Object id, int characters);

    /**
     * Moves dead letter {@code id} back into its queue as a new job on its first attempt, in one
     * transaction with its delete: a letter retried twice at once becomes one job.
     *
     * @throws InboxException {@code NOT_FOUND} where there is no such letter (any more)
     */
    void retryDeadLetter(String queue, Object id);

    /**
     * Moves the dead letters {@code filter} takes back into {@code queue}, each as {@link
     * #retryDeadLetter} does, in a transaction of its own (all in the caller's, inside one), and
     * answers how many it moved; a letter retried or deleted meanwhile by someone else is passed over.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue without a dead-letter table here
     */
    int retryDeadLetters(String queue, DeadLetterFilter filter);

    /**
     * Deletes the dead letters of {@code queue} that {@code filter} takes, and answers how many.
     *
     * @throws InboxException {@code NOT_FOUND} for a queue without a dead-letter table here
     */
    int deleteDeadLetters(String queue, DeadLetterFilter filter);

    /**
     * Deletes dead letter {@code id} of {@code queue}.
     *
     * @throws InboxException {@code NOT_FOUND} where there is no such letter (any more)
     */
    void deleteDeadLetter(String queue, Object id);
}
