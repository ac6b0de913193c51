package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Delivery;
import dev.inbox.Id;
import dev.inbox.Inbound;
import dev.inbox.InboxException;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Outcome;
import dev.inbox.Payload;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Handler declarations are checked at deployment; each problem names class, method and what to change. */
class HandlerMethodTest {

    @InboxTable("jobs")
    public record Jobs(@Id(generated = true) long id, @LockedUntil Instant lockedUntil, @Payload byte[] payload) {}

    public record Image(String path) {}

    public record NotATable(long id) {}

    public static class Handlers {
        public Outcome single(@Inbound(queue = "a", table = Jobs.class) Image image, Delivery delivery) {
            return Outcome.ack();
        }

        public void acksOnReturn(@Inbound(queue = "b", table = Jobs.class) Image image) {}

        public List<Outcome> batch(@Inbound(queue = "c", table = Jobs.class) List<Image> images,
                List<Delivery> deliveries) {
            return List.of();
        }

        public Outcome unknownTable(@Inbound(queue = "d", table = NotATable.class) Image image) {
            return Outcome.ack();
        }

        public Outcome extraParameter(@Inbound(queue = "e", table = Jobs.class) Image image, String other) {
            return Outcome.ack();
        }

        public String wrongReturn(@Inbound(queue = "f", table = Jobs.class) Image image) {
            return "";
        }

        public List<Outcome> transactionalBatch(@Inbound(queue = "g", table = Jobs.class, transactional = true)
                List<Image> images) {
            return List.of();
        }

        Outcome notPublic(@Inbound(queue = "h", table = Jobs.class) Image image) {
            return Outcome.ack();
        }

        public Outcome notAHandler(Image image) {
            return Outcome.ack();
        }
    }

    private static HandlerMethod read(String method) {
        return HandlerMethod.of(null, ReflectedMethod.of(Handlers.class, method));
    }

    private static void refused(String method, String... mentions) {
        assertThatThrownBy(() -> read(method)).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
            assertThat(e.getMessage()).contains(Handlers.class.getName() + "." + method).contains(mentions);
        });
    }

    @Test
    void goodDeclarationsAreRead() {
        HandlerMethod single = read("single");
        assertThat(single.queue()).isEqualTo("a");
        assertThat(single.payloadType()).isEqualTo(Image.class);
        assertThat(single.batch()).isFalse();
        assertThat(single.arguments("p", "d")).containsExactly("p", "d");
        assertThat(read("acksOnReturn").arguments("p", "d")).containsExactly("p");
        HandlerMethod batch = read("batch");
        assertThat(batch.batch()).isTrue();
        assertThat(batch.payloadType()).isEqualTo(Image.class);
        assertThat(read("notAHandler")).isNull();
    }

    @Test
    void wrongDeclarationsNameClassMethodAndWhatToChange() {
        refused("unknownTable", "@InboxTable", "table =");
        refused("extraParameter", "java.lang.String", "cannot supply", "Delivery");
        refused("wrongReturn", "returns java.lang.String", "return Outcome");
        refused("transactionalBatch", "batch handler", "transactional");
        refused("notPublic", "make it public");
    }
}
