package dev.inbox.opentelemetry;

import dev.inbox.Delivery;
import dev.inbox.Outcome;
import dev.inbox.Published;
import dev.inbox.spi.JobTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Traces publishes and deliveries with OpenTelemetry, after its messaging semantic conventions:
 * a publish is a PRODUCER span {@code <queue> publish} whose context (W3C {@code traceparent},
 * {@code tracestate}, through the OpenTelemetry's propagator) goes into the job's headers; a
 * delivery is a CONSUMER span {@code <queue> process}, current while the handler runs, so that
 * the handler's own spans nest under it.
 *
 * <p>A delivery of one job is a <em>child</em> of its publish: the job's work continues the
 * publisher's request, and a trace viewer shows publish and handling as one tree. A batch has
 * many publishers, so its one span has no parent and <em>links</em> to each job's publish.
 *
 * <pre>{@code
 * InboxBroker broker = InboxBroker.fromUrl(url).tracing(OpenTelemetryTracing.of(openTelemetry));
 * }</pre>
 *
 * A module of its own beside the application, on inbox-api alone: in a server the application's
 * class loader sees the server's OpenTelemetry API, where the resource adapter's may not.
 */
public final class OpenTelemetryTracing implements JobTracing {
    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
    private static final AttributeKey<Long> BATCH_COUNT = AttributeKey.longKey("messaging.batch.message_count");
    private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("inbox.attempt");
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("inbox.outcome");

    private static final TextMapGetter<Map<String, String>> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final Tracer tracer;
    private final TextMapPropagator propagator;

    private OpenTelemetryTracing(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer("dev.inbox");
        this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
    }

    /** Tracing through {@code openTelemetry}'s tracer and propagator. */
    public static JobTracing of(OpenTelemetry openTelemetry) {
        return new OpenTelemetryTracing(java.util.Objects.requireNonNull(openTelemetry, "openTelemetry"));
    }

    @Override
    public PublishTrace publishing(String queue, int jobs) {
        SpanBuilder builder = tracer.spanBuilder(queue + " publish").setSpanKind(SpanKind.PRODUCER)
                .setAttribute(SYSTEM, "inbox").setAttribute(DESTINATION, queue).setAttribute(OPERATION, "publish");
        if (jobs > 1) {
            builder.setAttribute(BATCH_COUNT, (long) jobs);
        }
        Span span = builder.startSpan();
        return new PublishTrace() {
            @Override
            public Map<String, String> headers(Map<String, String> headers) {
                Map<String, String> traced = new LinkedHashMap<>(headers);
                propagator.inject(Context.current().with(span), traced, Map::put);
                return traced;
            }

            @Override
            public void ended(List<Published> published, Throwable error) {
                if (error != null) {
                    span.recordException(error);
                    span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
                } else if (published.size() == 1) {
                    span.setAttribute(MESSAGE_ID, String.valueOf(published.get(0).id()));
                }
                span.end();
            }
        };
    }

    @Override
    public DeliveryTrace delivering(String queue, Delivery delivery) {
        return current(processing(queue).setParent(publisher(delivery))
                .setAttribute(MESSAGE_ID, String.valueOf(delivery.id()))
                .setAttribute(ATTEMPT, (long) delivery.attempt()).startSpan());
    }

    @Override
    public DeliveryTrace deliveringBatch(String queue, List<? extends Delivery> deliveries) {
        SpanBuilder builder = processing(queue).setNoParent().setAttribute(BATCH_COUNT, (long) deliveries.size());
        for (Delivery delivery : deliveries) {
            SpanContext publisher = Span.fromContext(publisher(delivery)).getSpanContext();
            if (publisher.isValid()) {
                builder.addLink(publisher);
            }
        }
        return current(builder.startSpan());
    }

    private SpanBuilder processing(String queue) {
        return tracer.spanBuilder(queue + " process").setSpanKind(SpanKind.CONSUMER)
                .setAttribute(SYSTEM, "inbox").setAttribute(DESTINATION, queue).setAttribute(OPERATION, "process");
    }

    /** The publisher's context from the job's headers; the root context where they carry none. */
    private Context publisher(Delivery delivery) {
        return propagator.extract(Context.root(), delivery.headers(), HEADERS);
    }

    /** {@code span}, current on this thread until the trace closes. */
    private static DeliveryTrace current(Span span) {
        Scope scope = span.makeCurrent();
        return new DeliveryTrace() {
            @Override
            public void failed(Throwable error) {
                span.recordException(error);
                span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
            }

            @Override
            public void settled(Delivery delivery, Outcome outcome) {
                // ack, retry or drop (a drop moves to the dead-letter table where the queue has one)
                span.setAttribute(OUTCOME, outcome.kind().name().toLowerCase(java.util.Locale.ROOT));
            }

            @Override
            public void close() {
                scope.close();
                span.end();
            }
        };
    }
}
