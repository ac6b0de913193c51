package dev.inbox.spi;

import dev.inbox.Delivery;
import dev.inbox.Outcome;
import dev.inbox.Published;
import java.util.List;
import java.util.Map;

/**
 * Traces a broker's publishes and deliveries: a publish opens a {@link PublishTrace} whose
 * context travels in the job's headers, and a delivery runs inside a {@link DeliveryTrace}
 * opened from those headers. Chosen once when the broker opens ({@code InboxBroker.tracing});
 * without one the broker uses {@link #NONE}, whose traces are shared constants that do nothing,
 * so that a broker without tracing pays one inlined call per publish and per delivery.
 *
 * <pre>{@code
 * InboxBroker broker = InboxBroker.fromUrl(url).tracing(OpenTelemetryTracing.of(openTelemetry));
 * }</pre>
 *
 * Called on the publisher's and the engine's threads; an implementation must not throw.
 */
public interface JobTracing {

    /** No tracing: every method does nothing. */
    JobTracing NONE = new JobTracing() {};

    /** Begins the publish of {@code jobs} jobs (1, or a {@code publishAll}'s count) to {@code queue}. */
    default PublishTrace publishing(String queue, int jobs) {
        return PublishTrace.NONE;
    }

    /**
     * Begins the delivery of {@code delivery} of {@code queue}, whose handler call and settlement
     * run before {@link DeliveryTrace#close()}, on this thread.
     */
    default DeliveryTrace delivering(String queue, Delivery delivery) {
        return DeliveryTrace.NONE;
    }

    /** As {@link #delivering(String, Delivery)}, for the {@code deliveries} of one batch handler call. */
    default DeliveryTrace deliveringBatch(String queue, List<? extends Delivery> deliveries) {
        return DeliveryTrace.NONE;
    }

    /** A publish in progress. */
    interface PublishTrace {
        /** A publish not traced. */
        PublishTrace NONE = new PublishTrace() {};

        /** The job's headers with this trace's context added ({@code headers} itself where none is). */
        default Map<String, String> headers(Map<String, String> headers) {
            return headers;
        }

        /** The publish ended: {@code published} its jobs, or {@code error} (then null) what it threw. */
        default void ended(List<Published> published, Throwable error) {}
    }

    /** A delivery in progress: current on this thread until closed. */
    interface DeliveryTrace extends AutoCloseable {
        /** A delivery not traced. */
        DeliveryTrace NONE = new DeliveryTrace() {};

        /** The handler threw {@code error} (or its call timed out). */
        default void failed(Throwable error) {}

        /** {@code delivery} came to {@code outcome}, and settles with it. */
        default void settled(Delivery delivery, Outcome outcome) {}

        /** The delivery ended. */
        @Override
        default void close() {}
    }
}
