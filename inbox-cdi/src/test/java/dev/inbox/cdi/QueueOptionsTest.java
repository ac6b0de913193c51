package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Inbound;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which value each option takes: the queue's key, then the annotation, then the global key, then the default. */
class QueueOptionsTest {

    @SuppressWarnings("unused")
    static final class Handlers {
        void plain(@Inbound(queue = "plain", table = HandlerMethodTest.Jobs.class) String payload) {}

        void explicit(@Inbound(queue = "explicit", table = HandlerMethodTest.Jobs.class, workers = 1,
                transactional = false, lease = "PT1M") String payload) {}
    }

    private static Subscription<String> apply(String method, Map<String, String> config) {
        Inbound inbound = Arrays.stream(Handlers.class.getDeclaredMethods()).filter(m -> m.getName().equals(method))
                .findFirst().orElseThrow().getParameters()[0].getAnnotation(Inbound.class);
        Subscription<String> subscription = Subscription.of(inbound.queue(), HandlerMethodTest.Jobs.class,
                String.class, (payload, delivery) -> Outcome.ack());
        return QueueOptions.apply(subscription, inbound, new MapConfig(config));
    }

    @Test
    void anExplicitAnnotationValueBeatsAGlobalDefault() {
        Subscription<String> s = apply("explicit", Map.of("inbox.workers", "8", "inbox.transactional", "true"));
        assertThat(s.get(SubscriptionOption.WORKERS)).isEqualTo(1);
        assertThat(s.get(SubscriptionOption.TRANSACTIONAL)).isFalse();
    }

    @Test
    void anUnsetAttributeTakesTheGlobalValueElseTheDefault() {
        Subscription<String> s = apply("plain", Map.of("inbox.workers", "8"));
        assertThat(s.get(SubscriptionOption.WORKERS)).isEqualTo(8);
        assertThat(s.get(SubscriptionOption.BATCH_SIZE)).isEqualTo(16);
        assertThat(s.setting(SubscriptionOption.BATCH_SIZE)).isEmpty();
    }

    @Test
    void theQueuesKeyBeatsTheAnnotation() {
        Subscription<String> s = apply("explicit", Map.of("inbox.queue.explicit.workers", "3",
                "inbox.queue.explicit.lease", "2m"));
        assertThat(s.get(SubscriptionOption.WORKERS)).isEqualTo(3);
        assertThat(s.get(SubscriptionOption.LEASE)).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void aBrokerWideGlobalValueIsLeftToTheBroker() {
        // inbox.lease is the broker's setting: a subscription that sets no lease takes the broker's.
        Subscription<String> s = apply("plain", Map.of("inbox.lease", "PT5M"));
        assertThat(s.setting(SubscriptionOption.LEASE)).isEmpty();
        assertThat(apply("explicit", Map.of("inbox.lease", "PT5M")).setting(SubscriptionOption.LEASE))
                .contains(Duration.ofMinutes(1));
    }

    @Test
    void aBadValueNamesItsKey() {
        assertThatThrownBy(() -> apply("plain", Map.of("inbox.queue.plain.workers", "many")))
                .isInstanceOf(InboxException.class).hasMessageContaining("inbox.queue.plain.workers")
                .hasMessageContaining("many");
    }
}
