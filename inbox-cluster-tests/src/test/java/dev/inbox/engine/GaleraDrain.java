package dev.inbox.engine;

import dev.inbox.Delivery;
import dev.inbox.Outcome;
import dev.inbox.spi.BrokerListener;
import java.sql.PreparedStatement;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The work of a Galera case: one handler per broker (each broker on a node of its own, or all on
 * one), each writing one effect row per delivery in the delivery's transaction, tagged with the
 * broker; records which broker began each job, and counts runs of a job that began while another
 * run of it was still in work, and races lost.
 */
final class GaleraDrain {
    static final String EFFECTS = "galera_effects";
    /** One row every handler updates where {@link #hotRow}: deliveries on two nodes then conflict at commit. */
    static final String COUNTER = "galera_counter";
    /** What a handler does besides its insert: long enough that a kill finds rows in work. */
    private static final long WORK_MILLIS = 10;

    /** When (System.nanoTime()) each broker that began a job first began it, by job and broker. */
    final Map<Integer, Map<Integer, Long>> began = new ConcurrentHashMap<>();
    final AtomicInteger calls = new AtomicInteger();
    /** Runs of a job that began while another run of the same job was in work: two handlers at once. */
    final AtomicInteger overlaps = new AtomicInteger();
    /** Races the brokers lost, by what lost them (claim, delivery, settlement, lease extension). */
    final Map<String, AtomicInteger> racesLost = new ConcurrentHashMap<>();
    private final Set<Integer> inWork = ConcurrentHashMap.newKeySet();
    private final boolean hotRow;

    /** @param hotRow true where each delivery also adds one to the counter's single row */
    GaleraDrain(boolean hotRow) {
        this.hotRow = hotRow;
    }

    boolean hotRow() {
        return hotRow;
    }

    /** The handler of broker {@code broker}. */
    dev.inbox.Handler<GaleraJob> handler(int broker) {
        return (job, delivery) -> handle(broker, job, delivery);
    }

    private Outcome handle(int broker, GaleraJob job, Delivery delivery) throws Exception {
        calls.incrementAndGet();
        began.computeIfAbsent(job.n(), n -> new ConcurrentHashMap<>()).putIfAbsent(broker, System.nanoTime());
        if (!inWork.add(job.n())) {
            overlaps.incrementAndGet();
        }
        try {
            Thread.sleep(WORK_MILLIS);
            try (PreparedStatement ps = delivery.connection().prepareStatement(
                    "INSERT INTO " + EFFECTS + " (n, broker) VALUES (?, ?)")) {
                ps.setInt(1, job.n());
                ps.setInt(2, broker);
                ps.executeUpdate();
            }
            if (hotRow) {
                try (PreparedStatement ps = delivery.connection().prepareStatement(
                        "UPDATE " + COUNTER + " SET hits = hits + 1 WHERE id = 1")) {
                    ps.executeUpdate();
                }
            }
            return Outcome.ack();
        } finally {
            inWork.remove(job.n());
        }
    }

    /** The listener of every broker: counts the races lost. */
    BrokerListener listener() {
        return new BrokerListener() {
            @Override
            public void raceLost(String queue, String what) {
                racesLost.computeIfAbsent(what, w -> new AtomicInteger()).incrementAndGet();
            }
        };
    }

    int races() {
        return racesLost.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /** The payload. */
    record GaleraJob(int n) {}
}
