package dev.inbox.cdi;

import dev.inbox.QueueStats;
import dev.inbox.engine.InboxBroker;
import dev.inbox.spi.BrokerListener;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Inbox's metrics on an OpenTelemetry {@link Meter} (MicroProfile Telemetry's, in a server): the
 * broker's events as counters and histograms, named after OpenTelemetry's messaging conventions
 * where one fits, and each queue's depth as gauges read when the exporter collects. Loaded only
 * where the application sees the OpenTelemetry API.
 */
final class InboxMetrics implements BrokerListener, AutoCloseable {
    static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("inbox.outcome");
    static final AttributeKey<String> STATE = AttributeKey.stringKey("inbox.job.state");

    /** OpenTelemetry's advice for messaging durations, in seconds. */
    private static final List<Double> SECONDS = List.of(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0,
            2.5, 5.0, 7.5, 10.0);
    private static final List<Long> ROWS = List.of(0L, 1L, 2L, 4L, 8L, 16L, 32L, 64L, 128L, 256L);

    private final Supplier<InboxBroker> broker;
    private final LongCounter sent;
    private final LongCounter consumed;
    private final DoubleHistogram claimDuration;
    private final LongHistogram claimRows;
    private final DoubleHistogram processDuration;
    private final LongCounter handled;
    private final BatchCallback depth;
    private final Map<String, Attributes> sends = new ConcurrentHashMap<>();
    private final Map<String, Attributes> receives = new ConcurrentHashMap<>();
    private final Map<String, Attributes> processes = new ConcurrentHashMap<>();
    private final Map<String, Map<Result, Attributes>> outcomes = new ConcurrentHashMap<>();

    /**
     * The instruments on {@code meter}; the gauges read {@code broker} (null before the
     * application's broker opened or after it closed: no points then).
     */
    InboxMetrics(Meter meter, Supplier<InboxBroker> broker) {
        this.broker = broker;
        sent = meter.counterBuilder("messaging.client.sent.messages").setUnit("{message}")
                .setDescription("Jobs published: rows inserted, in a transaction that may yet roll back").build();
        consumed = meter.counterBuilder("messaging.client.consumed.messages").setUnit("{message}")
                .setDescription("Jobs claimed for a handler").build();
        claimDuration = meter.histogramBuilder("messaging.client.operation.duration").setUnit("s")
                .setDescription("Duration of one claim, found rows or not").setExplicitBucketBoundariesAdvice(SECONDS)
                .build();
        claimRows = meter.histogramBuilder("inbox.claim.rows").ofLongs().setUnit("{job}")
                .setDescription("Rows one claim took").setExplicitBucketBoundariesAdvice(ROWS).build();
        processDuration = meter.histogramBuilder("messaging.process.duration").setUnit("s")
                .setDescription("Duration of one handler call (a batch handler's for the whole batch)")
                .setExplicitBucketBoundariesAdvice(SECONDS).build();
        handled = meter.counterBuilder("inbox.jobs.handled").setUnit("{job}")
                .setDescription("Deliveries ended, by inbox.outcome: ack, retry, drop, dead_letter, lease_lost, failed")
                .build();
        ObservableLongMeasurement jobs = meter.gaugeBuilder("inbox.queue.jobs").ofLongs().setUnit("{job}")
                .setDescription("Jobs of a queue by inbox.job.state: ready, in_work (this server's), scheduled, dead")
                .buildObserver();
        ObservableDoubleMeasurement oldest = meter.gaugeBuilder("inbox.queue.oldest_ready.age").setUnit("s")
                .setDescription("How long ago the oldest ready job of a queue was published (tables with published_at)")
                .buildObserver();
        // One callback for both gauges: one count of the tables per collection.
        depth = meter.batchCallback(() -> observe(jobs, oldest), jobs, oldest);
    }

    /**
     * The metrics on the container's {@link Meter} bean (MicroProfile Telemetry's); null where the
     * container has none.
     */
    static InboxMetrics onContainerMeter(BeanManager beans, Supplier<InboxBroker> broker) {
        Instance<Meter> meters = beans.createInstance().select(Meter.class);
        return meters.isResolvable() ? new InboxMetrics(meters.get(), broker) : null;
    }

    private void observe(ObservableLongMeasurement jobs, ObservableDoubleMeasurement oldest) {
        InboxBroker current = broker.get();
        if (current == null) {
            return;
        }
        Map<String, QueueStats> stats;
        try {
            stats = current.stats();
        } catch (RuntimeException e) {
            return; // closed meanwhile, or the database is unreachable (the health checks say so): no points
        }
        stats.forEach((queue, s) -> {
            Attributes queueAttributes = queue(queue);
            jobs.record(s.ready(), state(queueAttributes, "ready"));
            jobs.record(s.inWork(), state(queueAttributes, "in_work"));
            jobs.record(s.scheduled(), state(queueAttributes, "scheduled"));
            jobs.record(s.dead(), state(queueAttributes, "dead"));
            if (s.oldestReady() != null) {
                oldest.record(seconds(s.oldestReady()), queueAttributes);
            }
        });
    }

    private static Attributes state(Attributes queue, String state) {
        return queue.toBuilder().put(STATE, state).build();
    }

    private static Attributes queue(String queue) {
        return Attributes.of(SYSTEM, "inbox", DESTINATION, queue);
    }

    private static Attributes operation(String queue, String name, String type) {
        return Attributes.of(SYSTEM, "inbox", DESTINATION, queue, OPERATION, name, OPERATION_TYPE, type);
    }

    private static Attributes cached(Map<String, Attributes> cache, String queue, Function<String, Attributes> make) {
        Attributes attributes = cache.get(queue);
        return attributes != null ? attributes : cache.computeIfAbsent(queue, make);
    }

    private static double seconds(Duration took) {
        return took.toNanos() / 1e9;
    }

    @Override
    public void published(String queue, int jobs) {
        sent.add(jobs, cached(sends, queue, q -> operation(q, "send", "publish")));
    }

    @Override
    public void claimed(String queue, int rows, Duration took) {
        Attributes attributes = cached(receives, queue, q -> operation(q, "receive", "receive"));
        claimDuration.record(seconds(took), attributes);
        claimRows.record(rows, attributes);
        if (rows > 0) {
            consumed.add(rows, attributes);
        }
    }

    @Override
    public void handled(String queue, int jobs, Duration took, Throwable error) {
        Attributes attributes = cached(processes, queue, q -> operation(q, "process", "process"));
        processDuration.record(seconds(took), error == null ? attributes
                : attributes.toBuilder().put(ERROR_TYPE, error.getClass().getName()).build());
    }

    @Override
    public void finished(String queue, Result result) {
        Map<Result, Attributes> byResult = outcomes.computeIfAbsent(queue, q -> new ConcurrentHashMap<>());
        handled.add(1, byResult.computeIfAbsent(result,
                r -> queue(queue).toBuilder().put(OUTCOME, r.label()).build()));
    }

    /** Stops the gauges' callback: the application is stopping. */
    @Override
    public void close() {
        depth.close();
    }
}
