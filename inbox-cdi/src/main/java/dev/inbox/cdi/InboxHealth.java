package dev.inbox.cdi;

import dev.inbox.BrokerHealth;
import dev.inbox.QueueHealth;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.Map;
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
 * or {@code DOWN} (what is wrong with it, where {@code inbox.health.details=true}).
 */
final class InboxHealth {
    /** What a check says of a queue that is down, unless {@code inbox.health.details} is true. */
    static final String HIDDEN = "DOWN (the console's api/health says why, or set inbox.health.details=true)";

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
            return report(name, health, up.test(health), queueUp, inbox.healthDetails());
        }
    }

    private static HealthCheckResponse report(String name, BrokerHealth health, boolean up,
            Predicate<QueueHealth> queueUp, boolean details) {
        HealthCheckResponseBuilder response = HealthCheckResponse.named(name).status(up);
        data(health, queueUp, details).forEach(response::withData);
        return response.build();
    }

    /**
     * A check's data: a line per queue, and the listener's where it is down. What is wrong (a table's
     * name, the database's error text) is there only with {@code details}: the health endpoints
     * answer anyone who can reach the server, and the console's {@code api/health} says it to its
     * administrators.
     */
    static Map<String, String> data(BrokerHealth health, Predicate<QueueHealth> queueUp, boolean details) {
        Map<String, String> data = new LinkedHashMap<>();
        if (!health.running()) {
            data.put("inbox", "not running: the application has not started Inbox, or it stopped");
        }
        for (QueueHealth queue : health.queues()) {
            data.put("queue " + queue.queue(), !queueUp.test(queue) ? details ? queue.problem() : HIDDEN
                    : queue.paused() ? "UP, paused by an operator: claims wait until it is resumed" : "UP");
        }
        if (!health.listener().isEmpty()) {
            data.put("listener", details ? health.listener() : HIDDEN);
        }
        return data;
    }
}
