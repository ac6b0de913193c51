package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A backlog of refunds for a server to be killed amid, and what the kill may and may not change.
 * The load goes straight into {@code refund_jobs} in one insert transaction (the rows the publisher
 * writes), so every order is known to be queued before the kill and the kill cuts only the handling:
 * claims, transactions in progress, receipts and bookings in work.
 */
final class RefundLoad {
    private static final Pattern ORDER = Pattern.compile("\"order\"\\s*:\\s*(\\d+)");

    private final ItDatabase database;
    private final long first;
    private final int orders;
    private final String range;
    private long deadBefore;
    private long loadedAt;

    /** What a dead server left behind, read the moment it died. */
    record AtKill(long recorded, long refundJobs, long refundsLeased, Set<Long> receiptsInWork, long receiptJobs,
            long ledgerJobs, long ledgerLeased, long at) {
    }

    RefundLoad(ItDatabase database, long firstOrder, int orders) {
        this.database = database;
        this.first = firstOrder;
        this.orders = orders;
        this.range = " WHERE order_id BETWEEN " + firstOrder + " AND " + (firstOrder + orders - 1);
    }

    /** The amount of an order's refund; its ledger booking is the negative. */
    static long amount(long order) {
        return order % 997 + 1;
    }

    void insert() throws SQLException {
        deadBefore = database.count("refund_dead");
        try (Connection c = database.connect(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO refund_jobs (payload) VALUES (?)")) {
            c.setAutoCommit(false);
            for (long order = first; order < first + orders; order++) {
                insert.setBytes(1, ("{\"order\":" + order + ",\"amountCents\":" + amount(order)
                        + ",\"failFirst\":false,\"crashFirst\":false}").getBytes(StandardCharsets.UTF_8));
                insert.addBatch();
            }
            insert.executeBatch();
            c.commit();
        }
        loadedAt = System.nanoTime();
    }

    /** The orders of this load recorded so far. */
    long recorded() {
        return database.count("refunds" + range);
    }

    /** Waits (up to 120 s) until {@code share} of the load is recorded. */
    void awaitRecorded(double share) throws InterruptedException {
        ItDatabase.await(() -> recorded() >= orders * share, Duration.ofSeconds(120),
                "a share of " + share + " of the " + orders + " refunds recorded (" + database.count("refund_jobs")
                        + " refund jobs left)");
    }

    /** What the dead server left: every order recorded or still queued, never both, never neither. */
    AtKill atKill() throws SQLException {
        long at = System.nanoTime();
        // Both counts from one statement, one snapshot: a server still at work moves refunds from queued to recorded.
        long[] recordedAndQueued = new long[2];
        try (Connection c = database.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT (SELECT COUNT(*) FROM refunds" + range + "), (SELECT COUNT(*) FROM refund_jobs)")) {
            rs.next();
            recordedAndQueued[0] = rs.getLong(1);
            recordedAndQueued[1] = rs.getLong(2);
        }
        AtKill kill = new AtKill(recordedAndQueued[0], recordedAndQueued[1],
                database.count("refund_jobs WHERE locked_until IS NOT NULL"), receiptOrdersLeased(),
                database.count("receipt_jobs"), database.count("ledger_jobs"),
                database.count("ledger_jobs WHERE locked_until IS NOT NULL"), at);
        assertThat(kill.refundJobs()).as("refund jobs left at the kill: work in flight").isPositive();
        assertThat(kill.recorded() + kill.refundJobs()).as("orders recorded plus orders queued at the kill")
                .isEqualTo(orders);
        return kill;
    }

    /** Waits until every queue of the sample is empty: the refunds, their receipts and their bookings. */
    void awaitDrained(Duration timeout, String why) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (database.count("refund_jobs") + database.count("receipt_jobs") + database.count("ledger_jobs") > 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("after " + timeout.toSeconds() + " s (" + why + "): "
                        + database.count("refund_jobs") + " refund jobs ("
                        + database.count("refund_jobs WHERE locked_until IS NOT NULL") + " leased), "
                        + database.count("receipt_jobs") + " receipt jobs and " + database.count("ledger_jobs")
                        + " ledger jobs left");
            }
            Thread.sleep(100);
        }
    }

    /**
     * Every order recorded once with its amount, its receipt mailed, its booking made once; prints a
     * line {@code KILL <label> ...} with the figures.
     */
    void assertEachHandledOnce(String label, AtKill kill) throws SQLException {
        long drained = System.nanoTime();
        Map<Long, Long> refunds = pairs("SELECT order_id, amount_cents FROM refunds" + range);
        Map<Long, Long> receipts = pairs("SELECT order_id, COUNT(*) FROM receipts_mailed" + range + " GROUP BY order_id");
        Map<Long, Long> mailedTwice = new TreeMap<>();
        receipts.forEach((order, n) -> {
            if (n > 1) {
                mailedTwice.put(order, n);
            }
        });
        // A refund handled twice would find its order recorded: the handler drops it to refund_dead.
        long duplicates = database.count("refund_dead") - deadBefore;
        Map<Long, Long> bookings = pairs("SELECT order_id, COUNT(*) FROM ledger" + range + " GROUP BY order_id");
        Map<Long, Long> bookedCents = pairs("SELECT order_id, SUM(amount_cents) FROM ledger" + range + " GROUP BY order_id");
        long bookedTwice = bookings.values().stream().filter(n -> n > 1).count();
        System.out.printf(Locale.ROOT, "KILL %s db=%s orders=%d handled=%d lost=%d duplicates=%d receipts=%d"
                + " receipts_lost=%d receipts_mailed_twice=%d ledger_booked=%d ledger_booked_twice=%d | at the kill:"
                + " recorded=%d queued=%d refunds_in_work=%d receipt_jobs=%d receipts_in_work=%d ledger_jobs=%d"
                + " ledger_in_work=%d | kill_after_s=%.1f kill_to_drained_s=%.1f%n",
                label, database.name(), orders, refunds.size(), orders - refunds.size(), duplicates, receipts.size(),
                orders - receipts.size(), mailedTwice.size(), bookings.size(), bookedTwice, kill.recorded(),
                kill.refundJobs(), kill.refundsLeased(), kill.receiptJobs(), kill.receiptsInWork().size(),
                kill.ledgerJobs(), kill.ledgerLeased(), (kill.at() - loadedAt) / 1e9, (drained - kill.at()) / 1e9);

        assertThat(refunds).as("one record per order, with its amount").hasSize(orders)
                .allSatisfy((order, cents) -> assertThat(cents).isEqualTo(amount(order)));
        assertThat(receipts.keySet()).as("a receipt mailed for every order").isEqualTo(refunds.keySet());
        // The mailer is not transactional: a receipt it mailed just before the kill, whose job it could
        // not ack, is mailed again once the lease runs out. Only those; any other second receipt would
        // be a second receipt job, which the refunds' transactions must never leave.
        assertThat(mailedTwice.keySet()).as("orders mailed twice: only receipts in work at the kill")
                .isSubsetOf(kill.receiptsInWork());
        assertThat(mailedTwice.values()).as("at most one more mail for a receipt in work at the kill")
                .allSatisfy(n -> assertThat(n).isEqualTo(2L));
        assertThat(duplicates).as("refunds dead-lettered (a second delivery of a recorded order)").isZero();
        // The ledger bean is transacted: a booking in work at the kill rolled back with its ack.
        assertThat(bookings).as("ledger bookings per order, by the message-driven bean").hasSize(orders)
                .allSatisfy((order, n) -> assertThat(n).as("bookings of order " + order).isEqualTo(1L));
        assertThat(bookedCents).allSatisfy((order, cents) -> assertThat(cents).isEqualTo(-amount(order)));
    }

    /** The orders of the receipt jobs leased at the moment (their JSON payload is {"order":n}). */
    private Set<Long> receiptOrdersLeased() throws SQLException {
        Set<Long> leased = new TreeSet<>();
        try (Connection c = database.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT payload FROM receipt_jobs WHERE locked_until IS NOT NULL")) {
            while (rs.next()) {
                Matcher m = ORDER.matcher(new String(rs.getBytes(1), StandardCharsets.UTF_8));
                if (!m.find()) {
                    throw new IllegalStateException("a receipt job without an order");
                }
                leased.add(Long.parseLong(m.group(1)));
            }
        }
        return leased;
    }

    /** The first column of each row of {@code sql} to its second. */
    private Map<Long, Long> pairs(String sql) throws SQLException {
        Map<Long, Long> out = new TreeMap<>();
        try (Connection c = database.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return out;
    }
}
