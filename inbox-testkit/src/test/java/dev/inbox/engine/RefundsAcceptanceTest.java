package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Delivery;
import dev.inbox.InboxSpec;
import dev.inbox.Column;
import dev.inbox.Outcome;
import dev.inbox.Publisher;
import dev.inbox.Subscription;
import dev.inbox.testkit.InboxTestKit;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The acceptance case of SPEC §8, through the test kit: a refund writes its record and a receipt
 * job and calls a card processor with the order as idempotency key, in one transaction with its
 * settlement.
 */
class RefundsAcceptanceTest {
    record Refund(long order, long amountCents, boolean failFirst) {}

    record Receipt(long order) {}

    static final InboxSpec REFUND_JOBS = InboxSpec.table("refund_jobs", Column.of("id").generated())
            .attempt(Column.of("attempt").generated()).lease(Column.of("locked_until")).payload(Column.of("payload"));
    static final InboxSpec RECEIPT_JOBS = InboxSpec.table("receipt_jobs", Column.of("id").generated())
            .lease(Column.of("locked_until")).payload(Column.of("payload"));

    /** A card processor outside the database: the order is its idempotency key. */
    static final class CardProcessor {
        final Map<Long, AtomicInteger> calls = new ConcurrentHashMap<>();
        final Map<Long, Long> refunded = new ConcurrentHashMap<>();

        /** False when the call timed out (after the refund went through, as timeouts do). */
        boolean refund(Refund refund, int attempt) {
            calls.computeIfAbsent(refund.order(), o -> new AtomicInteger()).incrementAndGet();
            refunded.putIfAbsent(refund.order(), refund.amountCents());
            return !(refund.failFirst() && attempt == 1);
        }
    }

    private InboxTestKit kit;
    private final CardProcessor processor = new CardProcessor();
    private final List<Long> mailed = new CopyOnWriteArrayList<>();
    private Publisher<Receipt> receipts;

    @AfterEach
    void stop() {
        if (kit != null) {
            kit.close();
        }
    }

    /** The refunds handler of the seed, written against the delivery's transaction. */
    Outcome issue(Refund refund, Delivery delivery) throws SQLException {
        try (PreparedStatement insert = delivery.connection()
                .prepareStatement("INSERT INTO refunds (order_id, amount_cents) VALUES (?, ?)")) {
            insert.setLong(1, refund.order());
            insert.setLong(2, refund.amountCents());
            insert.executeUpdate();
        } catch (SQLException e) {
            String state = e.getSQLState();
            if (state != null ? !state.startsWith("23") : e.getErrorCode() != 19) {
                throw e; // not a duplicate key: the attempt fails, and the refund is tried again
            }
            return Outcome.drop("refund not recorded: " + e.getMessage());
        }
        receipts.publish(new Receipt(refund.order())); // joins the delivery's transaction
        if (!processor.refund(refund, delivery.attempt())) {
            return Outcome.retry(); // rolls the record and the receipt back first
        }
        return Outcome.ack();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void oneRecordAndOneReceiptPerRefundWhateverTheRetriesAndDuplicates(TestDatabase db) {
        kit = db == TestDatabase.SQLITE ? InboxTestKit.sqlite() : InboxTestKit.on(db.dataSource());
        String blob = db == TestDatabase.POSTGRES ? "BYTEA" : "BLOB";
        String id = switch (db) {
            case POSTGRES -> "BIGSERIAL PRIMARY KEY";
            case MARIADB, CONNECTOR_J, MYSQL -> "BIGINT AUTO_INCREMENT PRIMARY KEY";
            case SQLITE -> "INTEGER PRIMARY KEY";
        };
        String time = switch (db) {
            case POSTGRES -> "TIMESTAMPTZ";
            case MARIADB, CONNECTOR_J, MYSQL -> "DATETIME NULL";
            case SQLITE -> "TEXT";
        };
        kit.execute("DROP TABLE IF EXISTS refunds", "DROP TABLE IF EXISTS refund_jobs", "DROP TABLE IF EXISTS receipt_jobs",
                "CREATE TABLE refunds (order_id BIGINT PRIMARY KEY, amount_cents BIGINT NOT NULL)",
                "CREATE TABLE refund_jobs (id " + id + ", attempt SMALLINT NOT NULL DEFAULT 1, locked_until " + time
                        + ", payload " + blob + " NOT NULL)",
                "CREATE TABLE receipt_jobs (id " + id + ", locked_until " + time + ", payload " + blob + " NOT NULL)");
        kit.configure(b -> b.pollInterval(Duration.ofMillis(50)))
                .subscribe(Subscription.of("refunds", REFUND_JOBS, Refund.class, this::issue).transactional(true))
                .subscribe(Subscription.of("receipts", RECEIPT_JOBS, Receipt.class, (receipt, d) -> {
                    mailed.add(receipt.order());
                    return Outcome.ack();
                }))
                .start();
        receipts = kit.publisher("receipts", Receipt.class);
        Publisher<Refund> refunds = kit.publisher("refunds", Refund.class);

        refunds.publish(new Refund(42, 1999, false));
        refunds.publish(new Refund(43, 500, true)); // the processor times out on the first attempt
        awaitQueuesEmpty();
        refunds.publish(new Refund(42, 1999, false)); // the same refund again
        awaitQueuesEmpty();

        assertThat(kit.query("SELECT order_id, amount_cents FROM refunds ORDER BY order_id"))
                .extracting(r -> ((Number) r.get("order_id")).longValue() + ":" + ((Number) r.get("amount_cents")).longValue())
                .containsExactly("42:1999", "43:500");
        assertThat(mailed).containsExactlyInAnyOrder(42L, 43L);
        assertThat(processor.refunded).containsOnlyKeys(42L, 43L);
        assertThat(processor.calls.get(43L)).hasValue(2); // retried, refunded once through the idempotency key
        assertThat(processor.calls.get(42L)).hasValue(1); // the duplicate was dropped before the call
    }

    private void awaitQueuesEmpty() {
        InboxTestKit.await(() -> kit.count("refund_jobs") == 0 && kit.count("receipt_jobs") == 0,
                Duration.ofSeconds(30), () -> "refund and receipt queues drained; mailed " + mailed);
    }
}
