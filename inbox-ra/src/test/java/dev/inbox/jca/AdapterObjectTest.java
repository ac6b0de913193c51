package dev.inbox.jca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Applications reach the adapter through the administered object the server associates with it
 * and binds in JNDI, not a static field: one adapter serves several applications, each with a
 * data source of its own (here two SQLite files of {@link StandInServer}s).
 */
class AdapterObjectTest {
    record Job(long job, String mode) {}

    @Test
    void oneAdapterServesSeveralApplicationsEachOnItsOwnDataSource() throws Exception {
        try (StandInServer first = new StandInServer(); StandInServer second = new StandInServer()) {
            InboxResourceAdapter adapter = new InboxResourceAdapter();
            adapter.setDrainTimeout("1s");
            adapter.start(first.bootstrap());
            InboxAdapterObject object = new InboxAdapterObject();
            object.setResourceAdapter(adapter);
            Map<String, Set<Long>> handled = new ConcurrentHashMap<>();
            try {
                object.register(registration("app-a", first, handled));
                object.register(registration("app-b", second, handled));
                publish(first, 1, 2, 3);
                publish(second, 11, 12);
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (handled.values().stream().mapToInt(Set::size).sum() < 5 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(handled).isEqualTo(Map.of("app-a", Set.of(1L, 2L, 3L), "app-b", Set.of(11L, 12L)));
                assertThat(object.unregister("app-a")).as("app-a's broker shut down").isNotNull();
                assertThat(object.unregister("app-a")).as("and only once").isNull();
                assertThat(object.unregister("app-b")).isNotNull();
            } finally {
                adapter.stop();
            }
        }
    }

    @Test
    void anObjectNoServerAssociatedSaysSo() {
        InboxAdapterObject object = new InboxAdapterObject();
        assertThatThrownBy(object::getDataSource).isInstanceOf(InboxException.class)
                .hasMessageContaining("belongs to no resource adapter");
        assertThatThrownBy(() -> object.setResourceAdapter(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Inbox resource adapter");
    }

    private static Registration registration(String application, StandInServer server, Map<String, Set<Long>> handled) {
        Subscription<Job> subscription = Subscription.of("beans", InboxSpec.of(BeanJob.class), Job.class,
                (job, delivery) -> {
                    handled.computeIfAbsent(application, a -> ConcurrentHashMap.newKeySet()).add(job.job());
                    return Outcome.ack();
                });
        return new Registration(application, server.pool, List.of(subscription), Map.of(), Runnable::run, null,
                Map.of(), null, null, null, null, null, null, null);
    }

    private static void publish(StandInServer server, long... jobs) throws SQLException {
        try (Connection c = server.pool.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO bean_jobs (payload) VALUES (?)")) {
            for (long job : jobs) {
                ps.setBytes(1, ("{\"job\":" + job + ",\"mode\":\"ack\"}").getBytes());
                ps.executeUpdate();
            }
        }
    }
}
