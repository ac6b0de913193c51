package dev.inbox;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import java.util.function.Function;

/**
 * A job published on a cron schedule into a queue, once per occurrence however many servers share
 * the database: every broker that declares it evaluates the schedule table, and the one whose
 * conditional update moves the occurrence's due time on publishes it, in the same transaction.
 * After downtime the missed occurrences are published once (as the first of them), not once per tick. Immutable.
 *
 * <pre>{@code
 * broker.recurring(RecurringJob.of("nightly-report", "0 0 2 * * *", "reports", Report.class,
 *         due -> new Report("daily", due)).zone(ZoneId.of("Europe/Paris")));
 * }</pre>
 *
 * @param <T> the payload type of the queue
 */
public final class RecurringJob<T> {
    /** The longest name, so that it fits the schedule table's key (VARCHAR(200)). */
    public static final int MAX_NAME_LENGTH = 200;

    private final String name;
    private final String cron;
    private final String queue;
    private final Class<T> payloadType;
    private final Function<Instant, ? extends T> payload;
    private final ZoneId zone;
    private final boolean enabled;

    private RecurringJob(String name, String cron, String queue, Class<T> payloadType,
            Function<Instant, ? extends T> payload, ZoneId zone, boolean enabled) {
        this.name = name;
        this.cron = cron;
        this.queue = queue;
        this.payloadType = payloadType;
        this.payload = payload;
        this.zone = zone;
        this.enabled = enabled;
    }

    /**
     * A recurring job.
     *
     * @param name        its key in the schedule table, the same on every server
     * @param cron        six fields, seconds first ({@code second minute hour day-of-month month
     *                    day-of-week}), as Spring writes them: {@code "0 *}{@code /5 * * * *"} every five minutes
     * @param queue       the queue each occurrence is published into (routed or subscribed on the broker)
     * @param payloadType the queue's payload type
     * @param payload     makes an occurrence's payload from its due time; called by the server that
     *                    publishes it, in the publishing transaction
     */
    public static <T> RecurringJob<T> of(String name, String cron, String queue, Class<T> payloadType,
            Function<Instant, ? extends T> payload) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank() || name.length() > MAX_NAME_LENGTH) {
            throw new InboxException(InboxException.Kind.DECLARATION, "a recurring job's name has 1 to "
                    + MAX_NAME_LENGTH + " characters, not \"" + name + "\"");
        }
        Objects.requireNonNull(cron, "cron");
        Objects.requireNonNull(queue, "queue");
        return new RecurringJob<>(name, cron.trim(), queue, Objects.requireNonNull(payloadType, "payloadType"),
                Objects.requireNonNull(payload, "payload"), ZoneId.of("UTC"), true);
    }

    /** The zone the cron expression's hours and days are in; UTC unless set. */
    public RecurringJob<T> zone(ZoneId value) {
        return new RecurringJob<>(name, cron, queue, payloadType, payload, Objects.requireNonNull(value, "zone"),
                enabled);
    }

    /** Another cron expression (a configuration's override of the declared one). */
    public RecurringJob<T> cron(String value) {
        return new RecurringJob<>(name, Objects.requireNonNull(value, "cron").trim(), queue, payloadType, payload, zone,
                enabled);
    }

    /** A disabled job is not evaluated by this broker; its row in the schedule table stays. */
    public RecurringJob<T> enabled(boolean value) {
        return new RecurringJob<>(name, cron, queue, payloadType, payload, zone, value);
    }

    public String name() {
        return name;
    }

    public String cron() {
        return cron;
    }

    public String queue() {
        return queue;
    }

    public Class<T> payloadType() {
        return payloadType;
    }

    public ZoneId zone() {
        return zone;
    }

    public boolean enabled() {
        return enabled;
    }

    /** The payload of the occurrence due at {@code due}. */
    public T payload(Instant due) {
        return payload.apply(due);
    }

    @Override
    public String toString() {
        return "RecurringJob[" + name + ", cron=" + cron + " " + zone + ", queue=" + queue
                + (enabled ? "" : ", disabled") + "]";
    }
}
