package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.InboxException;
import dev.inbox.engine.form.ConnectionSource;
import dev.inbox.engine.form.LeaseForm;
import dev.inbox.spi.TableShape;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Acks of the lease form written together: one connection and one transaction for all, each row judged alone. */
class AckBatcherTest {
    private static final String TABLE = "ack_batch_jobs";

    private InboxBroker broker;
    private final List<String> reports = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.shutdown(Duration.ofSeconds(5));
        }
    }

    /** The broker's pool, counting the connections taken from it. */
    private static final class CountingSource implements ConnectionSource {
        final ConnectionSource pool;
        final AtomicInteger opened = new AtomicInteger();

        CountingSource(ConnectionSource pool) {
            this.pool = pool;
        }

        @Override
        public Connection open() throws SQLException {
            opened.incrementAndGet();
            return pool.open();
        }
    }

    private final AckBatcher.Reports recorder = new AckBatcher.Reports() {
        @Override
        public void acked(InFlight delivery) {
            reports.add(delivery.id() + " acked on " + Thread.currentThread().getName());
        }

        @Override
        public void lost(InFlight delivery, InboxException error) {
            reports.add(delivery.id() + " " + error.kind());
        }

        @Override
        public void failed(InFlight delivery, Exception error) {
            reports.add(delivery.id() + " failed: " + error);
        }
    };

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void acksHandedOverTogetherShareOneConnectionAndALostLeaseFailsOnlyItsOwn(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        broker = InboxBroker.fromUrl(db.url()).connect();
        LeaseForm form = new LeaseForm("acks", TABLE, broker.dialect(), broker.dialect().lease(new TableShape(
                Job.leaseTable(TABLE), broker.dialect()::quote, Map.of())), null, Duration.ofSeconds(30), true,
                new ObjectMapper());
        insert(5);
        List<InFlight> claimed = form.claim(broker.connections(), Instant.now(), 5);
        assertThat(claimed).hasSize(5);
        InFlight stolen = claimed.get(2);
        // Another claim took this row after its lease ran out: it holds a token of its own now.
        try (Connection c = broker.connections().open();
                PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET attempt = attempt + 1,"
                        + " locked_until = ? WHERE id = ?")) {
            broker.dialect().bindTime(ps, 1, broker.dialect().deadline(Instant.now(), Duration.ofMinutes(5)));
            ps.setObject(2, stolen.id());
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }

        CountingSource source = new CountingSource(broker.connections());
        AckBatcher acks = new AckBatcher(form, source, Clock.systemUTC(), recorder, 100);
        for (InFlight delivery : claimed) {
            synchronized (delivery) {
                delivery.markSettled();
            }
            acks.add(delivery); // the writer is not running yet: all five wait together
        }
        Thread writer = new Thread(acks::run, "ack-writer");
        writer.start();
        assertThat(acks.close(Duration.ofSeconds(10))).isTrue();
        writer.join(1_000);

        assertThat(source.opened).hasValue(1);
        assertThat(reports).hasSize(5).contains(stolen.id() + " LEASE_LOST");
        assertThat(reports).filteredOn(r -> r.endsWith("acked on ack-writer")).hasSize(4);
        assertThat(db.count(TABLE)).as("only the row another claim holds is left").isEqualTo(1);

        // Once closed, an ack handed over is written at once, on the caller's thread.
        insert(1);
        InFlight late = form.claim(broker.connections(), Instant.now(), 1).get(0);
        synchronized (late) {
            late.markSettled();
        }
        acks.add(late);
        assertThat(reports).last().isEqualTo(late.id() + " acked on " + Thread.currentThread().getName());
        assertThat(db.count(TABLE)).isEqualTo(1);
    }

    private void insert(int rows) throws SQLException {
        try (Connection c = broker.connections().open();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (payload) VALUES (?)")) {
            for (int i = 0; i < rows; i++) {
                ps.setBytes(1, ("{\"n\":" + i + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                ps.executeUpdate();
            }
        }
    }
}
