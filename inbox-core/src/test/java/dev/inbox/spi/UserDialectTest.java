package dev.inbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Column;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.engine.Eventually;
import dev.inbox.engine.InboxBroker;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A dialect of the user's own serves a database the built-ins do not: H2, a real second engine. */
class UserDialectTest {
    private static final String URL = "jdbc:h2:mem:inbox_spi;DB_CLOSE_DELAY=-1";
    private static final InboxSpec JOBS = InboxSpec.table("spi_jobs", Column.of("id").generated())
            .attempt(Column.of("attempt").generated()).lease(Column.of("locked_until")).payload(Column.of("payload"));

    record Job(int n) {}

    @Test
    void aUserDialectServesH2() throws Exception {
        try (Connection c = DriverManager.getConnection(URL); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS spi_jobs");
            s.execute("CREATE TABLE spi_jobs (id BIGINT AUTO_INCREMENT PRIMARY KEY, attempt SMALLINT DEFAULT 1 NOT NULL,"
                    + " locked_until TIMESTAMP WITH TIME ZONE, payload VARBINARY(1000) NOT NULL)");
        }
        List<String> seen = new CopyOnWriteArrayList<>();
        InboxBroker broker = InboxBroker.fromUrl(URL).dialect(new H2Dialect()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("spi", JOBS, Job.class, (job, d) -> {
                    seen.add(job.n() + "@" + d.attempt());
                    return job.n() == 3 && d.attempt() == 1 ? Outcome.retry() : Outcome.ack();
                }).workers(2))
                .connect();
        try {
            assertThat(broker.dialectName()).isEqualTo("h2");
            for (int i = 0; i < 20; i++) {
                broker.publisher("spi", Job.class).publish(new Job(i));
            }
            Eventually.await(() -> count() == 0, Duration.ofSeconds(20), () -> "drained on H2: " + seen);
        } finally {
            broker.shutdown();
        }
        assertThat(seen).hasSize(21).contains("3@1", "3@2");
    }

    @Test
    void withoutItH2StopsConnectWithBackend() {
        assertThatThrownBy(() -> InboxBroker.fromUrl(URL).connect())
                .isInstanceOfSatisfying(InboxException.class, e -> assertThat(e.kind()).isEqualTo(InboxException.Kind.BACKEND));
    }

    private static long count() {
        try (Connection c = DriverManager.getConnection(URL); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM spi_jobs")) {
            rs.next();
            return rs.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
