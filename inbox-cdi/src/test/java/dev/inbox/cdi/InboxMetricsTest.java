package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Outcome;
import dev.inbox.Payload;
import dev.inbox.PublishOptions;
import dev.inbox.PublishedAt;
import dev.inbox.RetryAfter;
import dev.inbox.Subscription;
import dev.inbox.testkit.InboxTestKit;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The OpenTelemetry instruments {@link InboxMetrics} records, read through the SDK's in-memory
 * reader after a known load on SQLite: names, units, attributes and values.
 */
class InboxMetricsTest {

    @InboxTable("metric_jobs")
    record MetricJob(@Id(generated = true) long id, @Attempt(generated = true) int attempt,
            @LockedUntil Instant lockedUntil, @RetryAfter Instant retryAfter, @PublishedAt Instant publishedAt,
            @Payload byte[] payload) {}

    record Work(int n) {}

    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
    private InboxTestKit kit;
    private InboxMetrics metrics;

    @AfterEach
    void close() {
        if (metrics != null) {
            metrics.close();
        }
        if (kit != null) {
            kit.close();
        }
        provider.close();
    }

    @Test
    void aKnownLoadShowsInEveryInstrument() throws Exception {
        kit = InboxTestKit.sqlite().execute("CREATE TABLE metric_jobs (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                + " attempt INTEGER NOT NULL DEFAULT 1, locked_until TEXT, retry_after TEXT, published_at TEXT, payload BLOB NOT NULL)",
                "CREATE TABLE metric_dead (id BIGINT PRIMARY KEY, payload BLOB NOT NULL, attempt INTEGER NOT NULL,"
                        + " error TEXT NOT NULL, failed_at TEXT NOT NULL)");
        metrics = new InboxMetrics(provider.get("dev.inbox"), () -> kit.broker());
        kit.configure(b -> b.listener(metrics).pollInterval(Duration.ofMillis(50)))
                .subscribe(Subscription.of("work", dev.inbox.InboxSpec.of(MetricJob.class), Work.class, (work, d) -> {
                    if (work.n() == 2) {
                        throw new IllegalArgumentException("job 2 fails");
                    }
                    return work.n() == 3 ? Outcome.drop("job 3 is not wanted") : Outcome.ack();
                }).maxAttempts(1).deadLetter("metric_dead"))
                .start();
        var publisher = kit.publisher("work", Work.class);
        for (int n = 1; n <= 3; n++) {
            publisher.publish(new Work(n));
        }
        publisher.publish(new Work(4), PublishOptions.NONE.delay(Duration.ofHours(1)));
        InboxTestKit.await(() -> sum(reader.collectAllMetrics(), "inbox.jobs.handled", Map.of()) == 3,
                Duration.ofSeconds(20), () -> "handled: " + reader.collectAllMetrics());
        // A job counts as handled once its settlement is done or handed to the ack writer; the gauges,
        // which count the table's rows beside the deliveries still in work, agree once the rows are
        // written and the workers have let go of them.
        InboxTestKit.await(() -> {
            Collection<MetricData> now = reader.collectAllMetrics();
            return gauge(now, "inbox.queue.jobs", "in_work") == 0 && gauge(now, "inbox.queue.jobs", "scheduled") == 1;
        }, Duration.ofSeconds(20), () -> "gauges: " + reader.collectAllMetrics());

        Collection<MetricData> all = reader.collectAllMetrics();
        assertThat(metric(all, "messaging.client.sent.messages").getUnit()).isEqualTo("{message}");
        assertThat(sum(all, "messaging.client.sent.messages", Map.of("messaging.operation.name", "send"))).isEqualTo(4);
        assertThat(sum(all, "messaging.client.consumed.messages", Map.of("messaging.destination.name", "work")))
                .isEqualTo(3);
        assertThat(sum(all, "inbox.jobs.handled", Map.of("inbox.outcome", "ack"))).isEqualTo(1);
        assertThat(sum(all, "inbox.jobs.handled", Map.of("inbox.outcome", "dead_letter")))
                .as("job 2 on its last attempt, job 3 dropped").isEqualTo(2);
        MetricData process = metric(all, "messaging.process.duration");
        assertThat(process.getUnit()).isEqualTo("s");
        assertThat(process.getHistogramData().getPoints().stream().mapToLong(p -> p.getCount()).sum()).isEqualTo(3);
        assertThat(process.getHistogramData().getPoints()).anySatisfy(p -> assertThat(p.getAttributes().asMap()
                .values()).contains(IllegalArgumentException.class.getName()));
        assertThat(metric(all, "messaging.client.operation.duration").getHistogramData().getPoints()).isNotEmpty();
        assertThat(metric(all, "inbox.claim.rows").getHistogramData().getPoints().stream()
                .mapToDouble(p -> p.getSum()).sum()).isEqualTo(3);

        assertThat(gauge(all, "inbox.queue.jobs", "ready")).isZero();
        assertThat(gauge(all, "inbox.queue.jobs", "scheduled")).as("job 4, delayed an hour").isEqualTo(1);
        assertThat(gauge(all, "inbox.queue.jobs", "in_work")).isZero();
        assertThat(gauge(all, "inbox.queue.jobs", "dead")).isEqualTo(2);
        assertThat(metric(all, "inbox.queue.oldest_ready.age").getDoubleGaugeData().getPoints())
                .singleElement().satisfies(p -> assertThat(p.getValue()).isZero());
    }

    @Test
    void theGaugesRecordNothingWhileTheBrokerIsClosed() {
        metrics = new InboxMetrics(provider.get("dev.inbox"), () -> null);
        assertThat(reader.collectAllMetrics()).noneMatch(m -> m.getName().startsWith("inbox.queue"));
    }

    private static MetricData metric(Collection<MetricData> all, String name) {
        Optional<MetricData> found = all.stream().filter(m -> m.getName().equals(name)).findFirst();
        assertThat(found).as(name + " in " + all.stream().map(MetricData::getName).collect(Collectors.toList()))
                .isPresent();
        return found.get();
    }

    private static long sum(Collection<MetricData> all, String name, Map<String, String> attributes) {
        return all.stream().filter(m -> m.getName().equals(name))
                .flatMap(m -> m.getLongSumData().getPoints().stream())
                .filter(p -> has(p, attributes)).mapToLong(p -> p.getValue()).sum();
    }

    private static long gauge(Collection<MetricData> all, String name, String state) {
        return metric(all, name).getLongGaugeData().getPoints().stream()
                .filter(p -> has(p, Map.of("inbox.job.state", state, "messaging.destination.name", "work")))
                .mapToLong(p -> p.getValue()).sum();
    }

    private static boolean has(PointData point, Map<String, String> attributes) {
        Attributes actual = point.getAttributes();
        return attributes.entrySet().stream().allMatch(e -> e.getValue().equals(actual.asMap().entrySet().stream()
                .filter(a -> a.getKey().getKey().equals(e.getKey())).map(a -> String.valueOf(a.getValue()))
                .findFirst().orElse(null)));
    }
}
