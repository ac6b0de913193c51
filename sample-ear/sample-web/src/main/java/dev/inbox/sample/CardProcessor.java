package dev.inbox.sample;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A simulated card processor, outside the database: the order is its idempotency key, so a call
 * repeated after a retry refunds the card once. It times out on the first call of a refund whose
 * {@code failFirst} is set, after refunding, as real timeouts do.
 */
@ApplicationScoped
public class CardProcessor {
    private final Map<Long, Long> refunded = new ConcurrentHashMap<>();

    /**
     * False when the call timed out.
     *
     * @throws IllegalStateException when the processor is down (a {@code crashFirst} refund's first call)
     */
    public boolean refund(Refund refund, int attempt) {
        if (refund.crashFirst() && attempt == 1) {
            throw new IllegalStateException("card processor unavailable for order " + refund.order());
        }
        refunded.putIfAbsent(refund.order(), refund.amountCents());
        return !(refund.failFirst() && attempt == 1);
    }
}
