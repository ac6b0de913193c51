package dev.inbox.jca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxListener;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.schema.InboxSchema;
import dev.inbox.testkit.InboxTestKit;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.InvalidPropertyException;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import jakarta.resource.spi.work.Work;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The adapter's inbound contract with small stand-ins for the server's objects
 * ({@link StandInServer}): a message-driven bean implementing {@link InboxListener} subscribes
 * with an activation spec, each delivery pairs beforeDelivery and afterDelivery, a transacted
 * bean's writes commit with the ack, and deactivation and stop give rows back in bounded time.
 */
class EndpointActivationTest {
    private static final Pattern JOB = Pattern.compile("\"job\"\\s*:\\s*(\\d+).*\"mode\"\\s*:\\s*\"([a-z-]+)\"");

    private StandInServer server;
    private InboxResourceAdapter adapter;

    @BeforeEach
    void start() throws Exception {
        server = new StandInServer();
        adapter = server.startAdapter();
    }

    @AfterEach
    void stop() {
        adapter.stop();
        server.close();
    }

    private static InboxActivationSpec spec(String... properties) {
        InboxActivationSpec spec = new InboxActivationSpec();
        spec.setQueue("beans");
        spec.setTable(BeanJob.class.getName());
        spec.setPollInterval("50ms");
        for (int i = 0; i < properties.length; i += 2) {
            switch (properties[i]) {
                case "workers" -> spec.setWorkers(properties[i + 1]);
                case "prefetch" -> spec.setPrefetch(properties[i + 1]);
                case "table" -> spec.setTable(properties[i + 1]);
                case "transactional" -> spec.setTransactional(properties[i + 1]);
                case "pollInterval" -> spec.setPollInterval(properties[i + 1]);
                default -> throw new IllegalArgumentException(properties[i]);
            }
        }
        return spec;
    }

    private void publish(long job, String mode) throws SQLException {
        try (Connection c = server.pool.getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO bean_jobs (payload) VALUES (?)")) {
            ps.setBytes(1, ("{\"job\":" + job + ",\"mode\":\"" + mode + "\"}").getBytes());
            ps.executeUpdate();
        }
    }

    private long count(String rows) {
        return server.count(rows);
    }

    /** Writes the job's effect through the container's data source, then ends as its mode says (on the first attempt). */
    private InboxListener writesThenEnds() {
        return (payload, delivery) -> {
            Matcher m = JOB.matcher(payload);
            assertThat(m.find()).as(payload).isTrue();
            try (Connection c = server.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO bean_effects (job, attempt) VALUES (?, ?)")) {
                ps.setLong(1, Long.parseLong(m.group(1)));
                ps.setInt(2, delivery.attempt());
                ps.executeUpdate();
            }
            boolean first = delivery.attempt() == 1;
            return switch (m.group(2)) {
                case "retry-once" -> first ? Outcome.retry(Duration.ofMillis(100)) : Outcome.ack();
                case "throw-once" -> {
                    if (first) {
                        throw new IllegalStateException("fails once after writing");
                    }
                    yield Outcome.ack();
                }
                default -> Outcome.ack();
            };
        };
    }

    private Map<Long, Integer> effects() {
        Map<Long, Integer> effects = new java.util.TreeMap<>();
        try (Connection c = server.pool.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT job, attempt FROM bean_effects")) {
            while (rs.next()) {
                effects.merge(rs.getLong(1), rs.getInt(2), (a, b) -> -1); // -1: two effects for one job
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return effects;
    }

    private void assertEveryDeliveryPaired() {
        assertThat(server.endpoints).isNotEmpty().allSatisfy(events ->
                assertThat(events).containsExactly("before", "onJob", "after", "release"));
    }

    @Test
    void aTransactedBeansWritesCommitWithTheAckAndRollBackOnARetryOrAnException() throws Exception {
        adapter.endpointActivation(server.bean(writesThenEnds(), true), spec());
        publish(1, "ack");
        publish(2, "retry-once");
        publish(3, "throw-once");
        InboxTestKit.await(() -> count("bean_jobs") == 0, Duration.ofSeconds(20), () -> "settled: " + effects());
        assertThat(effects()).as("job -> attempt of its one committed effect")
                .isEqualTo(Map.of(1L, 1, 2L, 2, 3L, 2));
        assertEveryDeliveryPaired();
        assertThat(server.endpoints).hasSize(5);
    }

    @Test
    void aBeanWithoutTransactionsSettlesItsOutcomesWithEachDeliveryPaired() throws Exception {
        adapter.endpointActivation(server.bean(writesThenEnds(), false), spec());
        publish(1, "ack");
        publish(2, "retry-once");
        InboxTestKit.await(() -> count("bean_jobs") == 0, Duration.ofSeconds(20), () -> "settled: " + effects());
        // Without a transaction every attempt's write stays.
        assertThat(count("bean_effects WHERE job = 2")).isEqualTo(2);
        assertEveryDeliveryPaired();
    }

    @Test
    void anActivationThatCannotStartStartsNothingAndSaysWhy() {
        MessageEndpointFactory bean = server.bean(writesThenEnds(), false);
        assertThatThrownBy(() -> adapter.endpointActivation(bean, spec("workers", "many")))
                .isInstanceOf(InvalidPropertyException.class)
                .hasMessageContaining("activation config property workers = 'many' is not a valid workers");
        assertThatThrownBy(() -> adapter.endpointActivation(bean, spec("table", "com.example.NoSuchTable")))
                .isInstanceOf(ResourceException.class)
                .hasMessageContaining("table names com.example.NoSuchTable, a class the bean's application does not have");
        assertThatThrownBy(() -> adapter.endpointActivation(bean, spec("transactional", "true")))
                .isInstanceOf(ResourceException.class)
                .hasMessageContaining("runs onJob without a transaction");
        assertThat(server.workStarted).as("no Work started").hasValue(0);
    }

    /**
     * Open Liberty activates a bean before the application's own start code creates its tables: the
     * activation succeeds, and the subscription opens once the table is there. A bean deactivated
     * while it waits never subscribes.
     */
    @Test
    void aBeanWhoseTableIsMissingSubscribesOnceTheApplicationCreatesIt() throws Exception {
        List<Long> handled = new java.util.concurrent.CopyOnWriteArrayList<>();
        MessageEndpointFactory waiting = server.bean((payload, delivery) -> {
            handled.add(((Number) delivery.id()).longValue());
            return Outcome.ack();
        }, false);
        adapter.endpointActivation(waiting, spec("table", LateJob.class.getName()));
        MessageEndpointFactory gone = server.bean((payload, delivery) -> {
            throw new AssertionError("a deactivated bean got job " + delivery.id());
        }, false);
        InboxActivationSpec goneSpec = spec("table", LateJob.class.getName());
        goneSpec.setQueue("gone");
        adapter.endpointActivation(gone, goneSpec);
        adapter.endpointDeactivation(gone, goneSpec);

        Thread.sleep(300);
        // The application's health shows the waiting bean: not ready, naming it and the missing table.
        assertThat(adapter.beans(StandInServer.class.getClassLoader())).singleElement().satisfies(bean -> {
            assertThat(bean.queue()).isEqualTo("beans");
            assertThat(bean.ready()).isFalse();
            assertThat(bean.problem()).contains("message-driven bean", "cannot subscribe to queue beans yet",
                    "late_jobs");
        });
        assertThat(adapter.beans(new java.net.URLClassLoader(new java.net.URL[0], null)))
                .as("another application's class loader sees none of these beans").isEmpty();
        try (Connection c = server.pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE late_jobs (id INTEGER PRIMARY KEY, attempt INTEGER NOT NULL DEFAULT 1,"
                    + " locked_until TEXT, payload BLOB NOT NULL)");
            for (int job = 1; job <= 10; job++) {
                s.execute("INSERT INTO late_jobs (payload) VALUES ('{\"job\":" + job + ",\"mode\":\"ack\"}')");
            }
        }
        InboxTestKit.await(() -> count("late_jobs") == 0, EndpointActivation.RETRY_INTERVAL.multipliedBy(5),
                () -> "handled " + handled);
        assertThat(handled).hasSize(10).doesNotHaveDuplicates();
        assertThat(adapter.beans(StandInServer.class.getClassLoader())).singleElement()
                .satisfies(bean -> assertThat(bean.ready()).as(bean.problem()).isTrue());
        assertThat(server.endpoints).as("endpoints created, each for the waiting bean: the other never subscribed")
                .hasSize(10);
        assertEveryDeliveryPaired();
    }

    /** The adapter's PauseTable names the pause table of the beans' subscriptions: a pause there holds the bean. */
    @Test
    void aBeanReadsTheAdaptersPauseTable() throws Exception {
        try (Connection c = server.pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS bean_pauses");
            s.execute("CREATE TABLE bean_pauses (queue VARCHAR(200) PRIMARY KEY, paused_at TEXT NOT NULL)");
            s.execute("INSERT INTO bean_pauses (queue, paused_at) VALUES ('beans', '2026-11-30T00:00:00Z')");
        }
        adapter.setPauseTable("bean_pauses");
        List<Long> handled = new java.util.concurrent.CopyOnWriteArrayList<>();
        adapter.endpointActivation(server.bean((payload, delivery) -> {
            handled.add(((Number) delivery.id()).longValue());
            return Outcome.ack();
        }, false), spec());
        publish(1, "ack");
        Thread.sleep(500); // ten poll intervals of the bean
        assertThat(handled).as("paused in the adapter's pause table").isEmpty();
        assertThat(adapter.beans(StandInServer.class.getClassLoader())).singleElement()
                .satisfies(bean -> assertThat(bean.paused()).isTrue());
        try (Connection c = server.pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM bean_pauses");
        }
        InboxTestKit.await(() -> handled.size() == 1, Duration.ofSeconds(10), () -> "resumed: " + handled);
    }

    /**
     * An application that publishes to a bean's queue (a route, no handler of its own) wakes the
     * bean's subscription when its publish commits, through the adapter: no wait for the poll.
     */
    @Test
    void anApplicationsPublishWakesTheBeanAtOnce() throws Exception {
        CountDownLatch handled = new CountDownLatch(1);
        adapter.endpointActivation(server.bean((payload, delivery) -> {
            handled.countDown();
            return Outcome.ack();
        }, false), spec("pollInterval", "60s"));
        Thread.sleep(500); // the bean's first poll found nothing: the next is a minute away
        var application = adapter.register(new Registration("publishing-app", server.pool, List.of(),
                Map.of("beans", InboxSpec.of(BeanJob.class)), Runnable::run, null, Map.of(), null, null, null, null, null, null, null));
        application.publisher("beans", Map.class).publish(Map.of("job", 1, "mode", "ack"));
        assertThat(handled.await(5, TimeUnit.SECONDS)).as("handled before the bean's next poll").isTrue();
        adapter.unregister("publishing-app");
    }

    /** An application's {@code inbox.subscriber-table} names where its broker declares how it reads its tables. */
    @Test
    void anApplicationDeclaresItsTablesInTheSubscriberTableItNames() throws Exception {
        try (Connection c = server.pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS app_subscribers");
            for (String sql : InboxSchema.of(c).subscriberTable("app_subscribers")) {
                s.execute(sql);
            }
        }
        Subscription<Map> beans = Subscription.of("beans", InboxSpec.of(BeanJob.class), Map.class,
                (payload, delivery) -> Outcome.ack());
        adapter.register(new Registration("declaring-app", server.pool, List.of(beans), Map.of(), Runnable::run, null,
                Map.of(), null, null, null, null, null, "app_subscribers", null));
        assertThat(count("app_subscribers")).as("its declaration of bean_jobs").isEqualTo(1);
        adapter.unregister("declaring-app");
        assertThat(count("app_subscribers")).as("deleted as it stopped").isZero();
    }

    @Test
    void deactivationGivesBackTheRowsClaimedAheadAndCutsOffAHandlerAtTheDrainTimeout() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        MessageEndpointFactory bean = server.bean((payload, delivery) -> {
            started.countDown();
            Thread.sleep(60_000); // interrupted at the drain timeout
            return Outcome.ack();
        }, false);
        InboxActivationSpec spec = spec("workers", "1", "prefetch", "3");
        for (int job = 1; job <= 4; job++) {
            publish(job, "ack");
        }
        adapter.endpointActivation(bean, spec);
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        long begin = System.nanoTime();
        adapter.endpointDeactivation(bean, spec);
        assertThat(Duration.ofNanos(System.nanoTime() - begin)).as("the drain timeout, 1 s, and a little")
                .isLessThan(Duration.ofSeconds(6));
        assertThat(count("bean_jobs")).isEqualTo(4);
        assertThat(count("bean_jobs WHERE locked_until IS NULL")).as("every row back in the queue").isEqualTo(4);
        assertThat(count("bean_jobs WHERE attempt = 1")).as("attempts unspent but the one cut off").isEqualTo(3);
        assertEveryDeliveryPaired();
    }

    @Test
    void stopEndsEveryActivationWithinTheDrainTimeout() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        adapter.endpointActivation(server.bean((payload, delivery) -> {
            started.countDown();
            Thread.sleep(60_000);
            return Outcome.ack();
        }, false), spec());
        publish(1, "ack");
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        long begin = System.nanoTime();
        adapter.stop();
        assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(6));
        assertThat(count("bean_jobs WHERE locked_until IS NULL")).isEqualTo(1);
    }

    /**
     * Open Liberty's quiesce waits for the Work submitted before it began: the adapter's Work
     * must end within a delivery and a slice while the subscription goes on working in new Work.
     * Idle, the adapter holds no Work but a poll's claim now and then.
     */
    @Test
    void workEndsWithinADeliveryAndASliceAndAnIdleAdapterHoldsNone() throws Exception {
        int jobs = 24;
        CountDownLatch started = new CountDownLatch(1);
        adapter.endpointActivation(server.bean((payload, delivery) -> {
            started.countDown();
            Thread.sleep(200);
            return Outcome.ack();
        }, false), spec("workers", "2"));
        for (int job = 1; job <= jobs; job++) {
            publish(job, "ack");
        }
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        Set<Work> beforeQuiesce = Set.copyOf(server.running);
        assertThat(beforeQuiesce).isNotEmpty();
        long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        while (beforeQuiesce.stream().anyMatch(server.running::contains) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(beforeQuiesce).as("Work submitted before the quiesce, ended within a delivery and a slice")
                .noneMatch(server.running::contains);
        assertThat(count("bean_jobs")).as("jobs left, worked by Work submitted since").isPositive();

        deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (count("bean_jobs") > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(count("bean_jobs")).isZero();
        Thread.sleep(200); // the last acks written
        int most = 0;
        int idleSamples = 0;
        for (int i = 0; i < 50; i++) {
            int now = server.running.size();
            most = Math.max(most, now);
            idleSamples += now == 0 ? 1 : 0;
            Thread.sleep(10);
        }
        assertThat(most).as("Work at once while idle (a poll's claim)").isLessThanOrEqualTo(1);
        assertThat(idleSamples).as("samples with no Work at all").isGreaterThan(25);
    }
}
