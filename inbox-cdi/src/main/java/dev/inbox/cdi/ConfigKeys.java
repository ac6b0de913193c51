package dev.inbox.cdi;

import dev.inbox.SubscriptionOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The application's {@code inbox.*} MicroProfile Config keys that Inbox does not read: a misspelt
 * option, or a queue no handler of the application has. Each is named with the closest key Inbox
 * reads, so a typo is not ignored without a word.
 */
final class ConfigKeys {
    /** The keys Inbox reads besides the options. */
    static final String DATA_SOURCE = "inbox.datasource";
    /** The JNDI name of the adapter's administered object. */
    static final String ADAPTER = "inbox.adapter";
    /** How long deliveries in work may settle when the application stops. */
    static final String DRAIN_TIMEOUT = "inbox.drain-timeout";
    /** Whether the application serves Inbox's console (default true). */
    static final String CONSOLE_ENABLED = "inbox.console.enabled";
    /** Where the console is served in the web module (default {@code /inbox}). */
    static final String CONSOLE_PATH = "inbox.console.path";
    /** The role a user needs to open the console (default {@code inbox-admin}). */
    static final String CONSOLE_ROLE = "inbox.console.role";
    /** The most characters of one dead letter's payload its console page shows (default 1,000,000). */
    static final String CONSOLE_PAYLOAD_LIMIT = "inbox.console.payload-limit";
    /** Whether the health checks name each failing queue's table and the database's error (default false). */
    static final String HEALTH_DETAILS = "inbox.health.details";
    /** The table of paused queues (default {@code inbox_paused}). */
    static final String PAUSE_TABLE = "inbox.pause-table";
    /** The table of the recurring jobs' due times (default {@code inbox_schedule}). */
    static final String SCHEDULE_TABLE = "inbox.schedule-table";
    static final String SUBSCRIBER_TABLE = "inbox.subscriber-table";
    /** What stands between the broker and the database (none, session or transaction pooling). */
    static final String CONNECTION_POOLER = "inbox.connection-pooler";
    /** The database the server configuration Inbox ships (liberty-config) chooses; the server reads it, not Inbox. */
    static final String SERVER_DATABASE = "inbox.db";

    private ConfigKeys() {}

    /** One warning per key under {@code inbox.} that is not a setting of the application's {@code queues}. */
    static List<String> unknown(Iterable<String> names, Collection<String> queues, Collection<String> recurring) {
        Set<String> known = known(queues, recurring);
        List<String> warnings = new ArrayList<>();
        for (String name : names) {
            if (name.startsWith("inbox.") && !known.contains(name)) {
                warnings.add("MicroProfile Config key " + name + " is not an Inbox setting, and Inbox ignores it; did"
                        + " you mean " + closest(name, known) + "?" + (name.startsWith("inbox.queue.")
                                ? " The application's handlers have the queues " + queues + "."
                                : name.startsWith(RecurringMethod.KEY_PREFIX)
                                        ? " The application's recurring jobs are " + recurring + "." : ""));
            }
        }
        return warnings;
    }

    /** Every key the extension reads for these queues and recurring jobs. */
    static Set<String> known(Collection<String> queues, Collection<String> recurring) {
        Set<String> known = new LinkedHashSet<>();
        known.add(DATA_SOURCE);
        known.add(DRAIN_TIMEOUT);
        known.add(ADAPTER);
        known.add(SERVER_DATABASE);
        known.add(CONSOLE_ENABLED);
        known.add(CONSOLE_PATH);
        known.add(CONSOLE_ROLE);
        known.add(HEALTH_DETAILS);
        known.add(CONSOLE_PAYLOAD_LIMIT);
        known.add(PAUSE_TABLE);
        known.add(SCHEDULE_TABLE);
        known.add(SUBSCRIBER_TABLE);
        known.add(CONNECTION_POOLER);
        for (String job : recurring) {
            for (String key : RecurringMethod.KEYS) {
                known.add(RecurringMethod.KEY_PREFIX + job + "." + key);
            }
        }
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            known.add(option.globalKey());
            for (String queue : queues) {
                known.add(option.queueKey(queue));
            }
        }
        return known;
    }

    private static String closest(String name, Set<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int distance = distance(name, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    /** The edit distance between two keys: insertions, deletions and substitutions of one character. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
