package dev.inbox.cdi;

import dev.inbox.BrokerHealth;
import dev.inbox.QueueHealth;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.function.Predicate;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;
import org.eclipse.microprofile.health.Startup;

/**
 * The application's Inbox in MicroProfile Health, with no code in the application: the CDI extension
 * adds these checks where the server serves MicroProfile Health ({@code /health/ready},
 * {@code /health/live}, {@code /health/started}). Each names every queue in its data: {@code UP},
 * or what is wrong with it.
 */
final class InboxHealth {
    private InboxHealth() {
    }

    /** Ready: Inbox started, every subscription's claims succeed, the listener listens where it should. */
    @Readiness
    @ApplicationScoped
    static class Ready extends Check {
        Ready() {
            super("inbox-ready", BrokerHealth::ready, QueueHealth::ready);
        }
    }

    /** Live: no claim loop stuck (a claim running, a loop waiting for a thread, the poll late). */
    @Liveness
    @ApplicationScoped
    static class Live extends Check {
        Live() {
            super("inbox-live", BrokerHealth::live, QueueHealth::live);
        }
    }

    /** Started: Inbox opened the application's subscriptions and runs them. */
    @Startup
    @ApplicationScoped
    static class Started extends Check {
        Started() {
            super("inbox-started", BrokerHealth::running, queue -> true);
        }
    }

    /** A check of the application's broker: its name, when it is up, and when each queue is. */
    abstract static class Check implements HealthCheck {
        @Inject
        InboxStartup inbox;

        private final String name;
        private final Predicate<BrokerHealth> up;
        private final Predicate<QueueHealth> queueUp;

        Check(String name, Predicate<BrokerHealth> up, Predicate<QueueHealth> queueUp) {
            this.name = name;
            this.up = up;
            this.queueUp = queueUp;
        }

        @Override
        public HealthCheckResponse call() {
            BrokerHealth health = inbox.health();
            return report(name, health, up.test(health), queueUp);
        }
    }

    private static HealthCheckResponse report(String name, BrokerHealth health, boolean up,
            Predicate<QueueHealth> queueUp) {
        HealthCheckResponseBuilder response = HealthCheckResponse.named(name).status(up);
        if (!health.running()) {
            response.withData("inbox", "not running: the application has not started Inbox, or it stopped");
        }
        for (QueueHealth queue : health.queues()) {
            response.withData("queue " + queue.queue(), !queueUp.test(queue) ? queue.problem()
                    : queue.paused() ? "UP, paused by an operator: claims wait until it is resumed" : "UP");
        }
        if (!health.listener().isEmpty()) {
            response.withData("listener", health.listener());
        }
        return response.build();
    }
}
