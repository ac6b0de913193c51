package dev.inbox.internal.broker;

import dev.inbox.InboxSpec;
import dev.inbox.Publisher;
import dev.inbox.internal.codec.PayloadCodec;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A broker's publishers, one per queue and payload type, each checked once as it is made: the
 * queue must be routed or subscribed, and its payload type one Jackson can construct.
 */
public final class BrokerPublishers {
    private final Lifecycle lifecycle;
    private final BrokerDraft draft;
    private final Map<Key, BrokerPublisher<?>> made = new ConcurrentHashMap<>();

    private record Key(String queue, Class<?> payloadType) {}

    public BrokerPublishers(Lifecycle lifecycle, BrokerDraft draft) {
        this.lifecycle = lifecycle;
        this.draft = draft;
    }

    /**
     * The publisher of {@code payloadType} into {@code queue}.
     *
     * @throws dev.inbox.InboxException {@code DECLARATION} for a queue the broker does not know, or a
     *                                  payload type Jackson cannot construct
     */
    @SuppressWarnings("unchecked")
    public <T> Publisher<T> of(String queue, Class<T> payloadType) {
        return (Publisher<T>) made.computeIfAbsent(new Key(queue, payloadType), key -> {
            InboxSpec spec = draft.route(queue);
            if (spec == null) {
                throw OpenedBroker.unknown(queue);
            }
            PayloadCodec payloads = draft.payloads();
            payloads.reader(payloadType, queue);
            return new BrokerPublisher<>(lifecycle, queue, spec, draft.json(), payloads.writer(payloadType, queue));
        });
    }

    /** A publisher of any payload into {@code queue}, for rows already written (dead letters moved back); null where unknown. */
    public BrokerPublisher<?> ofRows(String queue) {
        return draft.route(queue) == null ? null : (BrokerPublisher<?>) of(queue, Object.class);
    }
}
