package dev.inbox.cdi;

import dev.inbox.Inbound;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * A queue's subscription options: {@code inbox.queue.<queue>.<option>} from MicroProfile Config
 * wins; then what the {@code @Inbound} annotation sets explicitly; then {@code inbox.<option>};
 * then the option's default. A broker-wide option's {@code inbox.<option>} is the broker's
 * setting ({@link InboxStartup}), which the engine applies to every subscription that sets none.
 * Names, keys and attributes all come from {@link SubscriptionOption#all()}.
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
        Optional<V> value = configured(config, option, option.queueKey(subscription.queue()))
                .or(() -> option.fromAnnotation(inbound))
                .or(() -> option.brokerWide() ? Optional.empty() : configured(config, option, option.globalKey()));
        return value.map(v -> subscription.with(option, v)).orElse(subscription);
    }

    /** The value of {@code key}, checked as {@code option}'s; empty where the key is not set. */
    static <V> Optional<V> configured(Config config, SubscriptionOption<V> option, String key) {
        return config.getOptionalValue(key, String.class).map(text -> option.parse(key, text));
    }
}
