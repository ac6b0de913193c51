package dev.inbox.cdi;

import dev.inbox.Inbound;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * A queue's subscription options: {@code inbox.queue.<queue>.<option>} from MicroProfile Config
 * wins; then what the {@code @Inbound} annotation sets; then {@code inbox.<option>}; then the
 * option's default. The keys come from {@link SubscriptionOption#all()}.
 */
final class QueueOptions {
    private QueueOptions() {}

    static <T> Subscription<T> apply(Subscription<T> subscription, Inbound inbound, Config config) {
        Subscription<T> result = subscription;
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            result = applyOne(result, option, inbound, config);
        }
        return result;
    }

    private static <T, V> Subscription<T> applyOne(Subscription<T> subscription, SubscriptionOption<V> option,
            Inbound inbound, Config config) {
        String queueKey = "inbox.queue." + subscription.queue() + "." + option.name();
        Optional<V> value = config.getOptionalValue(queueKey, String.class).map(text -> option.parse(queueKey, text));
        if (value.isEmpty()) {
            value = fromAnnotation(option, inbound, subscription.queue());
        }
        if (value.isEmpty() && !brokerWide(option)) {
            String defaultKey = "inbox." + option.name();
            value = config.getOptionalValue(defaultKey, String.class).map(text -> option.parse(defaultKey, text));
        }
        return value.map(v -> subscription.with(option, v)).orElse(subscription);
    }

    /** Lease, poll interval and listen-notify from {@code inbox.*} are broker settings, passed to the adapter. */
    private static boolean brokerWide(SubscriptionOption<?> option) {
        return option == SubscriptionOption.LEASE || option == SubscriptionOption.POLL_INTERVAL
                || option == SubscriptionOption.LISTEN_NOTIFY;
    }

    /** What the annotation sets, where it differs from the attribute's default. */
    @SuppressWarnings("unchecked")
    private static <V> Optional<V> fromAnnotation(SubscriptionOption<V> option, Inbound inbound, String queue) {
        String source = "@Inbound(queue = \"" + queue + "\")";
        Object value = switch (option.name()) {
            case "lease" -> inbound.lease().isEmpty() ? null : option.parse(source + ".lease", inbound.lease());
            case "poll-interval" -> inbound.pollInterval().isEmpty() ? null
                    : option.parse(source + ".pollInterval", inbound.pollInterval());
            case "workers" -> inbound.workers() == 1 ? null : inbound.workers();
            case "batch-size" -> inbound.batchSize() == 16 ? null : inbound.batchSize();
            case "max-attempts" -> inbound.maxAttempts() == 0 ? null : inbound.maxAttempts();
            case "dead-letter" -> inbound.deadLetter().isEmpty() ? null : inbound.deadLetter();
            case "transactional" -> inbound.transactional() ? Boolean.TRUE : null;
            case "enabled" -> inbound.enabled() ? null : Boolean.FALSE;
            default -> null;
        };
        return Optional.ofNullable((V) value);
    }
}
