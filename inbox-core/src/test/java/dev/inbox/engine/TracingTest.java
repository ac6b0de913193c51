package dev.inbox.engine;

import static dev.inbox.engine.TestTable.Feature.ATTEMPT;
import static dev.inbox.engine.TestTable.Feature.HEADERS;
import static dev.inbox.engine.TestTable.Feature.RETRY_AFTER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.BatchHandler;
import dev.inbox.ClaimForm;
import dev.inbox.Handler;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.Published;
import dev.inbox.Subscription;
import dev.inbox.opentelemetry.OpenTelemetryTracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** A publish's span, its context in the job's headers, and the delivery's span joined to it. */
class TracingTest {
    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        brokers.forEach(b -> b.shutdown(Duration.ofSeconds(5)));
        otel.close();
    }

    private InboxBroker broker(TestDatabase db, TestTable table, Subscription<Job> subscription) {
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .tracing(OpenTelemetryTracing.of(otel))
                .subscribe(subscription.retryBackoff(Duration.ofMillis(10)))
                .connect();
        brokers.add(broker);
        return broker;
    }

    private InboxBroker broker(TestDatabase db, TestTable table, Handler<Job> handler) {
        return broker(db, table, Subscription.of("traced", table.spec(), Job.class, handler));
    }

    private List<SpanData> ended(SpanKind kind) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getKind() == kind).toList();
    }

    private void awaitSpans(SpanKind kind, int count) {
        Eventually.await(() -> ended(kind).size() >= count, Duration.ofSeconds(30),
                () -> count + " " + kind + " spans; ended: " + spans.getFinishedSpanItems());
    }

    private static String attribute(SpanData span, String key) {
        Object value = span.getAttributes().get(AttributeKey.stringKey(key));
        return value == null ? String.valueOf(span.getAttributes().get(AttributeKey.longKey(key))) : (String) value;
    }

    /** A handler whose first call throws and whose second acks. */
    private static Handler<Job> failingOnce() {
        AtomicInteger calls = new AtomicInteger();
        return (job, d) -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
            return Outcome.ack();
        };
    }

    /** Publishes one job and returns the spans of its two deliveries, each checked to be a child of the publish. */
    private List<SpanData> retriedOnceUnderItsPublish(InboxBroker broker) {
        broker.publisher("traced", Job.class).publish(new Job(1));
        awaitSpans(SpanKind.CONSUMER, 2);
        SpanData publish = ended(SpanKind.PRODUCER).get(0);
        List<SpanData> processes = ended(SpanKind.CONSUMER);
        assertThat(processes).allSatisfy(p -> assertThat(p.getParentSpanId()).isEqualTo(publish.getSpanId()));
        return processes;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void theDeliverySpanIsAChildOfThePublishSpan(FormCase c) {
        TestTable table = TestTable.of("tr_jobs", c.form(), ATTEMPT, HEADERS);
        table.create(c.db());
        List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
        var tracer = otel.getTracer("handler");
        InboxBroker broker = broker(c.db(), table, (job, d) -> {
            headers.add(d.headers());
            tracer.spanBuilder("handler work").startSpan().end(); // nests under the current span
            return Outcome.ack();
        });
        Published published = broker.publisher("traced", Job.class).publish(new Job(1),
                PublishOptions.NONE.header("tenant", "acme"));
        awaitSpans(SpanKind.CONSUMER, 1);

        SpanData publish = ended(SpanKind.PRODUCER).get(0);
        assertThat(publish.getName()).isEqualTo("traced publish");
        assertThat(attribute(publish, "messaging.system")).isEqualTo("inbox");
        assertThat(attribute(publish, "messaging.destination.name")).isEqualTo("traced");
        assertThat(attribute(publish, "messaging.operation.type")).isEqualTo("publish");
        assertThat(attribute(publish, "messaging.message.id")).isEqualTo(String.valueOf(published.id()));

        SpanData process = ended(SpanKind.CONSUMER).get(0);
        assertThat(process.getName()).isEqualTo("traced process");
        assertThat(process.getTraceId()).isEqualTo(publish.getTraceId());
        assertThat(process.getParentSpanId()).isEqualTo(publish.getSpanId());
        assertThat(attribute(process, "messaging.message.id")).isEqualTo(String.valueOf(published.id()));
        assertThat(attribute(process, "messaging.operation.type")).isEqualTo("process");
        assertThat(attribute(process, "inbox.attempt")).isEqualTo("1");
        assertThat(attribute(process, "inbox.outcome")).isEqualTo("ack");

        SpanData work = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("handler work"))
                .findFirst().orElseThrow();
        assertThat(work.getParentSpanId()).isEqualTo(process.getSpanId());
        assertThat(headers.get(0)).containsEntry("tenant", "acme")
                .containsEntry("traceparent", "00-" + publish.getTraceId() + "-" + publish.getSpanId() + "-01");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aRetryGivesASecondDeliverySpanUnderTheSamePublish(TestDatabase db) {
        TestTable table = TestTable.of("tr_retry", ClaimForm.LEASE, ATTEMPT, RETRY_AFTER, HEADERS);
        table.create(db);
        List<SpanData> processes = retriedOnceUnderItsPublish(broker(db, table, failingOnce()));
        assertThat(processes).extracting(p -> attribute(p, "inbox.attempt")).containsExactly("1", "2");
        assertThat(processes).extracting(p -> attribute(p, "inbox.outcome")).containsExactly("retry", "ack");
        assertThat(processes.get(0).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(processes.get(1).getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aTableWithoutHeadersStillTracesBothSidesApart(TestDatabase db) {
        TestTable table = TestTable.of("tr_bare", ClaimForm.LEASE, ATTEMPT);
        table.create(db);
        List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
        InboxBroker broker = broker(db, table, (job, d) -> {
            headers.add(d.headers());
            return Outcome.ack();
        });
        broker.publisher("traced", Job.class).publish(new Job(1));
        awaitSpans(SpanKind.CONSUMER, 1);

        SpanData publish = ended(SpanKind.PRODUCER).get(0);
        SpanData process = ended(SpanKind.CONSUMER).get(0);
        assertThat(headers).containsExactly(Map.of());
        assertThat(process.getTraceId()).isNotEqualTo(publish.getTraceId());
        assertThat(process.getParentSpanContext().isValid()).isFalse();
        assertThat(attribute(process, "inbox.outcome")).isEqualTo("ack");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aPublishInTheCallersTransactionCarriesTheCallersTrace(TestDatabase db) throws Exception {
        TestTable table = TestTable.of("tr_tx", ClaimForm.LEASE, ATTEMPT, HEADERS);
        table.create(db);
        InboxBroker broker = broker(db, table, (job, d) -> Outcome.ack());
        Span request = otel.getTracer("caller").spanBuilder("request").startSpan();
        try (var scope = request.makeCurrent(); Connection connection = db.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            broker.publisher("traced", Job.class).publish(connection, new Job(1));
            connection.commit();
        } finally {
            request.end();
        }
        awaitSpans(SpanKind.CONSUMER, 1);

        SpanData publish = ended(SpanKind.PRODUCER).get(0);
        SpanData process = ended(SpanKind.CONSUMER).get(0);
        assertThat(publish.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
        assertThat(process.getParentSpanId()).isEqualTo(publish.getSpanId());
        assertThat(process.getTraceId()).isEqualTo(request.getSpanContext().getTraceId());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aTransactionalDeliveryIsTracedToItsCommit(FormCase c) {
        TestTable table = TestTable.of("tr_txd", c.form(), ATTEMPT, HEADERS);
        table.create(c.db());
        List<SpanData> processes = retriedOnceUnderItsPublish(broker(c.db(), table,
                Subscription.of("traced", table.spec(), Job.class, failingOnce()).transactional(true)));
        assertThat(processes).extracting(p -> attribute(p, "inbox.outcome")).containsExactly("retry", "ack");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aBatchSpanLinksToEachJobsPublish(TestDatabase db) {
        TestTable table = TestTable.of("tr_batch", ClaimForm.LEASE, ATTEMPT, HEADERS);
        table.create(db);
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        InboxBroker publisherOnly = InboxBroker.fromUrl(db.url()).tracing(OpenTelemetryTracing.of(otel))
                .route("traced", table.spec()).connect();
        brokers.add(publisherOnly);
        List<Published> published = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            published.add(publisherOnly.publisher("traced", Job.class).publish(new Job(i)));
        }
        BatchHandler<Job> handler = (jobs, deliveries) -> {
            sizes.add(jobs.size());
            return java.util.Collections.nCopies(jobs.size(), Outcome.ack());
        };
        broker(db, table, Subscription.ofBatch("traced", table.spec(), Job.class, handler).batchSize(3));
        Eventually.await(() -> sizes.stream().mapToInt(Integer::intValue).sum() == 3, Duration.ofSeconds(30),
                () -> "3 jobs delivered: " + sizes);
        awaitSpans(SpanKind.CONSUMER, sizes.size());

        List<String> publishSpans = ended(SpanKind.PRODUCER).stream().map(SpanData::getSpanId).toList();
        List<String> linked = ended(SpanKind.CONSUMER).stream().flatMap(s -> s.getLinks().stream())
                .map(LinkData::getSpanContext).map(l -> l.getSpanId()).toList();
        assertThat(linked).containsExactlyInAnyOrderElementsOf(publishSpans);
        assertThat(ended(SpanKind.CONSUMER)).allSatisfy(s -> assertThat(s.getParentSpanContext().isValid()).isFalse());
    }
}
