package dev.inbox.internal.broker;

import dev.inbox.InboxException;
import dev.inbox.InboxException.Kind;
import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Counts the connections the broker's subscriptions may hold at once, and compares them at open
 * with the pool the broker built. A pool smaller than the total makes claims and settlements wait
 * for one another: warned of, as they still move. A pool that the connections held while waiting
 * for another (advisory sessions of transactional deliveries, the LISTEN connection) can fill
 * whole leaves nothing to move: refused, where each delivery would wait out the pool's timeout.
 */
final class ConnectionBudget {
    private static final System.Logger LOG = System.getLogger(ConnectionBudget.class.getName());

    private final Map<String, Integer> needs = new LinkedHashMap<>();
    /** By queue, the connections held while each waits for one more; only those that have some. */
    private final Map<String, Integer> heldWaiting = new LinkedHashMap<>();
    private boolean listener;
    private int warnedAt;

    /**
     * {@code queue}'s subscription holds up to {@code connections} at once, as its claim form counts
     * them, {@code waiting} of them while each waits for another.
     */
    synchronized void add(String queue, int connections, int waiting) {
        needs.put(queue, connections);
        if (waiting > 0) {
            heldWaiting.put(queue, waiting);
        }
    }

    synchronized void addListener() {
        listener = true;
    }

    synchronized int total() {
        return needs.values().stream().mapToInt(Integer::intValue).sum() + (listener ? 1 : 0);
    }

    /**
     * The fewest connections with which the broker moves at all: those that may be held while
     * waiting, the LISTEN connection (held while the broker runs), and one for the rest to share.
     */
    synchronized int floor() {
        return heldWaiting.values().stream().mapToInt(Integer::intValue).sum() + (listener ? 1 : 0) + 1;
    }

    /**
     * Refuses a pool of {@code poolSize} (0 when unknown: the application's DataSource) below the
     * floor, and warns once per growth when it is below the total.
     *
     * @throws InboxException {@code DECLARATION} naming {@code connectionLimit} and the floor
     */
    synchronized void check(int poolSize, boolean anyTransactional) {
        int floor = floor();
        if (poolSize > 0 && poolSize < floor) {
            String held = heldWaiting.entrySet().stream().map(e -> "queue " + e.getKey() + "'s " + e.getValue()
                    + " advisory lock sessions may each hold a connection while its transactional delivery waits for"
                    + " another").collect(Collectors.joining("; "));
            throw new InboxException(Kind.DECLARATION, "connectionLimit is " + poolSize + ", and the broker needs at"
                    + " least " + floor + " connections to make any progress (" + (held.isEmpty() ? "" : held + "; ")
                    + (listener ? "the LISTEN connection is held for as long as the broker runs; " : "")
                    + "and one more for claims, settlements and publishes to share): with fewer, every delivery"
                    + " could wait out the pool's connection timeout; raise connectionLimit to at least " + floor + " (to "
                    + (total() + (anyTransactional ? 1 : 0)) + " for no waiting)");
        }
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
