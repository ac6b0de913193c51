package dev.inbox;

import java.util.Collections;
import java.util.List;

/**
 * Handles the payloads of one claim together, for work that is cheaper in bulk (one insert of
 * many rows, one call to a bulk API). It returns one outcome per payload, in the order given, so
 * each row settles on its own: some acked, some retried. A thrown exception retries them all.
 * A batch handler is never transactional: a subscription that declares both is refused at open.
 *
 * <pre>{@code
 * BatchHandler<Image> thumbnails = (images, deliveries) -> {
 *     renderer.renderAll(images);
 *     return BatchHandler.all(images, Outcome.ack());
 * };
 * }</pre>
 *
 * @param <T> the type each payload is decoded into
 */
@FunctionalInterface
public interface BatchHandler<T> {

    /**
     * @param payloads   the decoded payloads, at most the subscription's batch size
     * @param deliveries the delivery of each payload, in the same order
     * @return one outcome per payload, in the same order
     */
    List<Outcome> handle(List<T> payloads, List<Delivery> deliveries) throws Exception;

    /** The same outcome for every payload of the batch. */
    static List<Outcome> all(List<?> payloads, Outcome outcome) {
        return Collections.nCopies(payloads.size(), outcome);
    }
}
