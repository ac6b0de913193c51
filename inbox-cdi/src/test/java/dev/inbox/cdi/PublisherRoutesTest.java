package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Id;
import dev.inbox.Inbound;
import dev.inbox.InboxSpec;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The tables of the queues injected publishers name are settled at deployment, or it fails naming the point. */
class PublisherRoutesTest {

    @InboxTable("ledger_jobs")
    public record LedgerJob(@Id(generated = true) long id, @LockedUntil Instant lockedUntil, @Payload byte[] payload) {}

    @InboxTable("other_jobs")
    public record OtherJob(@Id(generated = true) long id, @LockedUntil Instant lockedUntil, @Payload byte[] payload) {}

    public record NotATable(long id) {}

    public record Entry(long order) {}

    public static class Handlers {
        public void book(@Inbound(queue = "handled", table = LedgerJob.class) Entry entry) {}
    }

    private static Map<String, HandlerMethod> handlers() {
        return Map.of("handled", HandlerMethod.of(null, ReflectedMethod.of(Handlers.class, "book")));
    }

    @Test
    void aQueueHandledElsewhereTakesTheTableItsPublisherNames() {
        PublisherRoutes routes = new PublisherRoutes();
        routes.add("ledger", LedgerJob.class, "Refunds.ledger");
        routes.add("ledger", void.class, "LedgerResource.ledger");
        routes.add("handled", void.class, "Resource.handled");
        routes.add("handled", LedgerJob.class, "Resource.alsoHandled");
        assertThat(routes.problems(handlers())).isEmpty();
        assertThat(routes.tables()).isEqualTo(Map.of("ledger", InboxSpec.of(LedgerJob.class),
                "handled", InboxSpec.of(LedgerJob.class)));
    }

    @Test
    void aQueueWithoutATableOrWithTwoFailsTheDeploymentNamingThePublisher() {
        PublisherRoutes routes = new PublisherRoutes();
        routes.add("nowhere", void.class, "Resource.nowhere");
        routes.add("twice", LedgerJob.class, "A.twice");
        routes.add("twice", OtherJob.class, "B.twice");
        routes.add("handled", OtherJob.class, "C.handled");
        routes.add("bad", NotATable.class, "D.bad");
        assertThat(routes.problems(handlers())).satisfiesExactlyInAnyOrder(
                problem -> assertThat(problem).contains("injected into D.bad names a table it cannot use",
                        "set @Queue(table = ...) to the @InboxTable record"),
                problem -> assertThat(problem).contains("queue twice is published to table ledger_jobs by A.twice and"
                        + " to table other_jobs by B.twice"),
                problem -> assertThat(problem).contains("injected into C.handled names table other_jobs, but the"
                        + " queue's handler", "Handlers.book takes it from table ledger_jobs"),
                problem -> assertThat(problem).contains("the publisher of queue nowhere injected into Resource.nowhere"
                        + " publishes to a queue no handler method of this application takes",
                        "@Queue(value = \"nowhere\", table = YourJobTable.class)"));
    }
}
