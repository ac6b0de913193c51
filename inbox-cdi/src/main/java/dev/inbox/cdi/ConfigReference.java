package dev.inbox.cdi;

import java.util.ArrayList;
import java.util.List;

/**
 * The MicroProfile Config keys the CDI extension reads besides the subscription options
 * ({@link dev.inbox.SubscriptionOption} declares those), each with its default and meaning: the
 * source of the configuration reference in the documentation. A test checks that every key the
 * extension reads is here.
 */
public final class ConfigReference {

    /**
     * One key: {@code <queue>} or {@code <name>} in it stands for a queue's or a recurring job's name.
     *
     * @param key the MicroProfile Config key
     * @param defaultValue what applies where the key is not set
     * @param description what it sets
     */
    public record Key(String key, String defaultValue, String description) {}

    private static final List<Key> KEYS = declare();

    private ConfigReference() {}

    /** The keys, in the order the documentation lists them. */
    public static List<Key> keys() {
        return KEYS;
    }

    private static List<Key> declare() {
        List<Key> keys = new ArrayList<>(List.of(
                new Key(ConfigKeys.DATA_SOURCE, "the adapter's `DataSource` property, else `jdbc/inbox`",
                        "JNDI name of the application's JTA data source, which holds its queue tables."),
                new Key(ConfigKeys.ADAPTER, "`inbox/adapter`",
                        "JNDI name of the resource adapter's administered object, which the server binds"
                                + " (`<adminObject jndiName=..>` on Open Liberty, `java:/inbox/adapter` on WildFly)."),
                new Key(ConfigKeys.DRAIN_TIMEOUT, "the adapter's `DrainTimeout`, else 30s",
                        "How long deliveries in work may settle when the application stops."),
                new Key(ConfigKeys.PAUSE_TABLE, "the adapter's `PauseTable`, else `inbox_paused`",
                        "The table of paused queues, shared by every server on the database."),
                new Key(ConfigKeys.SCHEDULE_TABLE, "`inbox_schedule`", "The table of the recurring jobs' next due times."),
                new Key(ConfigKeys.SUBSCRIBER_TABLE, "`inbox_subscribers`", "The table where each server declares how"
                        + " it reads each queue table; a server that reads one another way is refused."),
                new Key(ConfigKeys.CONNECTION_POOLER, "the adapter's `ConnectionPooler`, else `none`",
                        "What stands between the broker and the database: `none`, `session` or `transaction`"
                                + " (PgBouncer's `pool_mode`). Behind `transaction` the advisory form and a table's"
                                + " declared isolation are refused, PostgreSQL needs `prepareThreshold=0`, and"
                                + " listening subscriptions poll; see Scaling."),
                new Key(ConfigKeys.CONSOLE_ENABLED, "true", "Set false to leave the console out of the application (true or false, nothing else)."),
                new Key(ConfigKeys.CONSOLE_PATH, "`/inbox`", "Where the web module serves the console."),
                new Key(ConfigKeys.CONSOLE_ROLE, "`inbox-admin`", "The role a user needs to open the console."),
                new Key(ConfigKeys.CONSOLE_PAYLOAD_LIMIT, "1000000", "The most characters (bytes, for a binary"
                        + " payload column) of one dead letter's payload its console page and `api/.../dead-letters/{id}`"
                        + " read from the database and show; lists show the first " + dev.inbox.DeadLetter.PREVIEW
                        + "."),
                new Key(ConfigKeys.HEALTH_DETAILS, "false", "Set true so that the MicroProfile Health checks say what"
                        + " is wrong with a queue (its table, the database's error) to anyone who reads them; by"
                        + " default they say DOWN, and the console's `api/health` says why.")));
        keys.add(new Key(RecurringMethod.KEY_PREFIX + "<name>.cron", "the `@Recurring` method's `cron`",
                "The cron expression (six fields, seconds first) of the recurring job `<name>`."));
        keys.add(new Key(RecurringMethod.KEY_PREFIX + "<name>.zone", "the method's `zone`, else UTC",
                "The time zone the job's expression is read in."));
        keys.add(new Key(RecurringMethod.KEY_PREFIX + "<name>.enabled", "true",
                "Set false so that this server does not publish the job's occurrences."));
        keys.add(new Key(ConfigKeys.SERVER_DATABASE, "`sqlite`",
                "Read by the server configuration Inbox ships (`liberty-config`), not by Inbox: the data source file"
                        + " it includes (`sqlite`, `postgres` or `mariadb`)."));
        return List.copyOf(keys);
    }
}
