package dev.inbox.cdi;

import dev.inbox.opentelemetry.OpenTelemetryTracing;
import dev.inbox.spi.JobTracing;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;

/**
 * Binds the broker's tracing to the container's {@link OpenTelemetry} bean (MicroProfile
 * Telemetry's on Open Liberty, WildFly's OpenTelemetry subsystem): publishes and deliveries then
 * join the application's traces. Loaded only where the application sees the OpenTelemetry API.
 */
final class InboxTracing {
    private InboxTracing() {}

    /** Tracing through the container's OpenTelemetry; null where no bean is resolvable. */
    static JobTracing onContainerTelemetry(BeanManager beans) {
        Instance<OpenTelemetry> telemetry = beans.createInstance().select(OpenTelemetry.class);
        return telemetry.isResolvable() ? OpenTelemetryTracing.of(telemetry.get()) : null;
    }
}
