package dev.inbox.cdi;

import dev.inbox.Inbound;
import dev.inbox.Subscription;
import dev.inbox.SubscriptionOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * A queue's subscription options: {@code inbox.queue.<queue>.<option>} from MicroProfile Config
 * wins; then what the {@code @Inbound} annotation sets explicitly; then {@code inbox.<option>};
 * then the option's default. A broker-wide option's {@code inbox.<option>} is the broker's
 * setting ({@link #brokerSettings}), which the engine applies to every subscription that sets none.
 * Names, keys and attributes all come from {@link SubscriptionOption#all()}.
 */
final class QueueOptions {
    private QueueOptions() {}

    /**
     * The options {@code queue} sets, by option.
     *
     * @throws dev.inbox.InboxException {@code DECLARATION} naming the key or attribute of a bad value
     */
    static Map<SubscriptionOption<?>, Object> resolve(String queue, Inbound inbound, Config config) {
        Map<SubscriptionOption<?>, Object> values = new LinkedHashMap<>();
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            resolve(option, queue, inbound, config).ifPresent(value -> values.put(option, value));
        }
        return values;
    }

    private static <V> Optional<V> resolve(SubscriptionOption<V> option, String queue, Inbound inbound, Config config) {
        return configured(config, option, option.queueKey(queue))
                .or(() -> option.fromAnnotation(inbound))
                .or(() -> option.brokerWide() ? Optional.empty() : configured(config, option, option.globalKey()));
    }

    /** The broker-wide options the configuration sets ({@code inbox.lease}, ...), by option. */
    static Map<SubscriptionOption<?>, Object> brokerSettings(Config config) {
        Map<SubscriptionOption<?>, Object> settings = new LinkedHashMap<>();
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            if (option.brokerWide()) {
                configured(config, option, option.globalKey()).ifPresent(v -> settings.put(option, v));
            }
        }
        return settings;
    }

    /** {@code subscription} with {@code values} set. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static <T> Subscription<T> apply(Subscription<T> subscription, Map<SubscriptionOption<?>, Object> values) {
        Subscription<T> result = subscription;
        for (Map.Entry<SubscriptionOption<?>, Object> value : values.entrySet()) {
            result = result.with((SubscriptionOption) value.getKey(), value.getValue());
        }
        return result;
    }

    /** {@code subscription} with the options its annotation and the configuration set. */
    static <T> Subscription<T> apply(Subscription<T> subscription, Inbound inbound, Config config) {
        return apply(subscription, resolve(subscription.queue(), inbound, config));
    }

    /** The value of {@code key}, checked as {@code option}'s; empty where the key is not set. */
    static <V> Optional<V> configured(Config config, SubscriptionOption<V> option, String key) {
        return config.getOptionalValue(key, String.class).map(text -> option.parse(key, text));
    }
}
