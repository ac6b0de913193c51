package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Attempt;
import dev.inbox.Headers;
import dev.inbox.Id;
import dev.inbox.InboxSpec;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Outcome;
import dev.inbox.Payload;
import dev.inbox.Subscription;
import dev.inbox.spi.JobTracing;
import dev.inbox.testkit.InboxTestKit;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The container's OpenTelemetry bean traces the broker, found in a real CDI container (Weld SE). */
class InboxTracingTest {
    static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();

    @InboxTable("traced_jobs")
    record TracedJob(@Id(generated = true) long id, @Attempt(generated = true) int attempt,
            @LockedUntil Instant lockedUntil, @Headers String headers, @Payload byte[] payload) {}

    record Work(int n) {}

    /** What MicroProfile Telemetry provides in a server: an OpenTelemetry bean. */
    @ApplicationScoped
    static class TelemetryProducer {
        @Produces
        @ApplicationScoped
        OpenTelemetry openTelemetry() {
            return OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder()
                            .addSpanProcessor(SimpleSpanProcessor.create(SPANS)).build())
                    .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                    .build();
        }
    }

    /** A bean of the application's that is no OpenTelemetry. */
    @ApplicationScoped
    static class Unrelated {}

    private InboxTestKit kit;

    @AfterEach
    void close() {
        if (kit != null) {
            kit.close();
        }
        SPANS.reset();
    }

    @Test
    void withoutAnOpenTelemetryBeanNothingTraces() {
        try (WeldContainer container = new Weld().disableDiscovery().addBeanClasses(Unrelated.class).initialize()) {
            assertThat(InboxTracing.onContainerTelemetry(container.getBeanManager())).isNull();
        }
    }

    @Test
    void theContainersOpenTelemetryJoinsTheHandlersSpanToThePublishersTrace() throws Exception {
        try (WeldContainer container = new Weld().disableDiscovery().addBeanClasses(TelemetryProducer.class)
                .initialize()) {
            JobTracing tracing = InboxTracing.onContainerTelemetry(container.getBeanManager());
            assertThat(tracing).isNotNull();
            kit = InboxTestKit.sqlite().execute("CREATE TABLE traced_jobs (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                    + " attempt INTEGER NOT NULL DEFAULT 1, locked_until TEXT, headers TEXT, payload BLOB NOT NULL)");
            kit.configure(b -> b.tracing(tracing).pollInterval(Duration.ofMillis(50)))
                    .subscribe(Subscription.of("traced", InboxSpec.of(TracedJob.class), Work.class,
                            (work, d) -> Outcome.ack()))
                    .start();
            kit.publisher("traced", Work.class).publish(new Work(1));
            InboxTestKit.await(() -> SPANS.getFinishedSpanItems().stream().anyMatch(s -> s.getKind() == SpanKind.CONSUMER),
                    Duration.ofSeconds(20), () -> "a delivery span: " + SPANS.getFinishedSpanItems());
            List<SpanData> spans = SPANS.getFinishedSpanItems();
            SpanData publish = spans.stream().filter(s -> s.getKind() == SpanKind.PRODUCER).findFirst().orElseThrow();
            SpanData process = spans.stream().filter(s -> s.getKind() == SpanKind.CONSUMER).findFirst().orElseThrow();
            assertThat(process.getTraceId()).isEqualTo(publish.getTraceId());
            assertThat(process.getParentSpanId()).isEqualTo(publish.getSpanId());
        }
    }
}
