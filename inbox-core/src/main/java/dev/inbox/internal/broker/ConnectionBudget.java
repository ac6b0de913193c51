package dev.inbox.internal.broker;

import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Counts the connections the broker's subscriptions may hold at once, and warns at open when the
 * pool is smaller: a pool smaller than that makes claims and settlements wait for one another.
 */
final class ConnectionBudget {
    private static final System.Logger LOG = System.getLogger(ConnectionBudget.class.getName());

    private final Map<String, Integer> needs = new LinkedHashMap<>();
    private boolean listener;
    private int warnedAt;

    /** {@code queue}'s subscription holds up to {@code connections} at once, as its claim form counts them. */
    synchronized void add(String queue, int connections) {
        needs.put(queue, connections);
    }

    synchronized void addListener() {
        listener = true;
    }

    synchronized int total() {
        return needs.values().stream().mapToInt(Integer::intValue).sum() + (listener ? 1 : 0);
    }

    /** Warns once per growth when {@code poolSize} (0 when unknown) is below the total. */
    synchronized void check(int poolSize, boolean anyTransactional) {
        int total = total();
        if (total <= warnedAt) {
            return;
        }
        String detail = needs.entrySet().stream().map(e -> "queue " + e.getKey() + ": " + e.getValue())
                .collect(Collectors.joining(", ")) + (listener ? ", the LISTEN connection: 1" : "");
        if (poolSize == 0) {
            LOG.log(Level.INFO, "the subscriptions may hold up to {0} connections of the application''s DataSource at"
                    + " once ({1}); size its pool above that{2}", total, detail, handlers(anyTransactional));
            warnedAt = total;
        } else if (poolSize < total || (anyTransactional && poolSize == total)) {
            LOG.log(Level.WARNING, "the pool holds {0} connections, and the subscriptions may hold up to {1} at once"
                    + " ({2}): raise connectionLimit to at least {3}{4}; until then claims and settlements wait for"
                    + " one another", poolSize, total, detail, total + (anyTransactional ? 1 : 0),
                    handlers(anyTransactional));
            warnedAt = total;
        }
    }

    private static String handlers(boolean anyTransactional) {
        return anyTransactional ? ", and more where handlers of transactional deliveries take connections of their own"
                : "";
    }
}
