package dev.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Every subscription option can be set from {@link Inbound}, and an attribute left alone sets nothing. */
class InboundAttributesTest {

    @SuppressWarnings("unused")
    static final class Handlers {
        void unset(@Inbound(queue = "q", table = Object.class) String payload) {}

        void explicitDefaults(@Inbound(queue = "q", table = Object.class, workers = 1, transactional = false,
                enabled = true, lease = "30s") String payload) {}

        void set(@Inbound(queue = "q", table = Object.class, lease = "PT1M", pollInterval = "500ms", workers = 4,
                batchSize = 32, prefetch = 8, maxAttempts = 5, deadLetter = "dead_jobs", retryBackoff = "10s",
                retryBackoffMax = "1h", handlerTimeout = "2m", transactional = true, listenNotify = true, enabled = false) String payload) {}

        void twoFlags(@Inbound(queue = "q", table = Object.class, transactional = {true, false}) String payload) {}

        void outOfRange(@Inbound(queue = "q", table = Object.class, workers = 0) String payload) {}
    }

    private static Inbound inbound(String method) {
        Method m = Arrays.stream(Handlers.class.getDeclaredMethods()).filter(x -> x.getName().equals(method))
                .findFirst().orElseThrow();
        Parameter p = m.getParameters()[0];
        return p.getAnnotation(Inbound.class);
    }

    @Test
    void everyOptionHasAnAttributeWhoseDefaultLeavesItUnset() throws NoSuchMethodException {
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            Object declared = Inbound.class.getMethod(option.attribute()).getDefaultValue();
            assertThat(Objects.deepEquals(declared, option.unsetAttribute()))
                    .as("@Inbound.%s() defaults to %s", option.attribute(), option.unsetAttribute()).isTrue();
        }
        Set<String> attributes = Arrays.stream(Inbound.class.getDeclaredMethods()).map(Method::getName)
                .collect(Collectors.toSet());
        Set<String> expected = SubscriptionOption.all().stream().map(SubscriptionOption::attribute)
                .collect(Collectors.toSet());
        expected.addAll(Set.of("queue", "table"));
        assertThat(attributes).isEqualTo(expected);
    }

    @Test
    void anAttributeLeftAloneSetsNothing() {
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            assertThat(option.fromAnnotation(inbound("unset"))).as(option.name()).isEmpty();
        }
    }

    @Test
    void anExplicitValueIsSetEvenWhereItEqualsTheDefault() {
        Inbound explicit = inbound("explicitDefaults");
        assertThat(SubscriptionOption.WORKERS.fromAnnotation(explicit)).contains(1);
        assertThat(SubscriptionOption.TRANSACTIONAL.fromAnnotation(explicit)).contains(false);
        assertThat(SubscriptionOption.ENABLED.fromAnnotation(explicit)).contains(true);
        assertThat(SubscriptionOption.LEASE.fromAnnotation(explicit)).contains(Duration.ofSeconds(30));
    }

    @Test
    void everyAttributeSetsItsOption() {
        Inbound set = inbound("set");
        assertThat(SubscriptionOption.LEASE.fromAnnotation(set)).contains(Duration.ofMinutes(1));
        assertThat(SubscriptionOption.POLL_INTERVAL.fromAnnotation(set)).contains(Duration.ofMillis(500));
        assertThat(SubscriptionOption.WORKERS.fromAnnotation(set)).contains(4);
        assertThat(SubscriptionOption.BATCH_SIZE.fromAnnotation(set)).contains(32);
        assertThat(SubscriptionOption.PREFETCH.fromAnnotation(set)).contains(8);
        assertThat(SubscriptionOption.MAX_ATTEMPTS.fromAnnotation(set)).contains(5);
        assertThat(SubscriptionOption.DEAD_LETTER.fromAnnotation(set)).contains("dead_jobs");
        assertThat(SubscriptionOption.RETRY_BACKOFF.fromAnnotation(set)).contains(Duration.ofSeconds(10));
        assertThat(SubscriptionOption.RETRY_BACKOFF_MAX.fromAnnotation(set)).contains(Duration.ofHours(1));
        assertThat(SubscriptionOption.HANDLER_TIMEOUT.fromAnnotation(set)).contains(Duration.ofMinutes(2));
        assertThat(SubscriptionOption.TRANSACTIONAL.fromAnnotation(set)).contains(true);
        assertThat(SubscriptionOption.LISTEN_NOTIFY.fromAnnotation(set)).contains(true);
        assertThat(SubscriptionOption.ENABLED.fromAnnotation(set)).contains(false);
    }

    @Test
    void aBadAttributeNamesTheQueueAndTheAttribute() {
        assertThatThrownBy(() -> SubscriptionOption.TRANSACTIONAL.fromAnnotation(inbound("twoFlags")))
                .isInstanceOf(InboxException.class).hasMessageContaining("@Inbound(queue = \"q\", transactional)")
                .hasMessageContaining("give one");
        assertThatThrownBy(() -> SubscriptionOption.WORKERS.fromAnnotation(inbound("outOfRange")))
                .isInstanceOf(InboxException.class).hasMessageContaining("workers")
                .hasMessageContaining("between 1 and 1024");
    }
}
